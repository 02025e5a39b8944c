import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEAD_BYTES, listProblem, TAIL_BYTES, type FetchedList } from './list-fetch.js';

/** "curl 7.88.1", or undefined when curl is not installed. */
export function curlVersion(): string | undefined {
  const probe = spawnSync('curl', ['--version'], { encoding: 'utf8' });
  if (probe.error) return undefined;
  return /curl \S+/.exec(probe.stdout)?.[0];
}

/**
 * Fetches the list once with curl into a temporary file, then checks the file's length, head and
 * tail. curl reads a hundred megabytes for a fraction of the CPU Node's HTTP client needs, which on
 * a small machine is CPU left to the service and the database being measured. The time is curl's
 * own, from connecting to the last byte.
 */
export async function fetchListWithCurl(url: string, rows: number): Promise<FetchedList> {
  const file = join(tmpdir(), `usvc-bench-list-${process.pid}-${randomBytes(4).toString('hex')}.json`);
  try {
    const written = await runCurl(['--silent', '--show-error', '--output', file, '--write-out', '%{http_code} %{size_download} %{time_total}', url]);
    const [status, bytes, seconds] = written.trim().split(' ').map(Number) as [number, number, number];
    if (status !== 200) throw new Error(`GET list answered ${status}`);
    const { head, tail } = await headAndTail(file, bytes);
    const problem = listProblem(head, tail, bytes, rows);
    if (problem) throw new Error(`list response is not the expected JSON array: ${problem}`);
    return { seconds, bytes, rows };
  } finally {
    await rm(file, { force: true });
  }
}

function runCurl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`curl exited with ${code}: ${stderr.trim()}`))));
  });
}

async function headAndTail(file: string, bytes: number): Promise<{ head: string; tail: string }> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(HEAD_BYTES, bytes));
    const tail = Buffer.alloc(Math.min(TAIL_BYTES, bytes));
    await handle.read(head, 0, head.length, 0);
    await handle.read(tail, 0, tail.length, bytes - tail.length);
    return { head: head.toString('utf8'), tail: tail.toString('utf8') };
  } finally {
    await handle.close();
  }
}
