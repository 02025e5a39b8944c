import { openSync, closeSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { StdioOptions } from 'node:child_process';
import { join } from 'node:path';
import { serverName } from '../src/config/db-servers.js';
import type { DbConfig } from '../src/config/environment.js';
import { projectRoot } from '../src/paths.js';
import { freeTcpPort } from '../test/helpers/free-ports.js';
import { hasExited, startChild, stopChild, withTimeout } from './lifecycle.js';
import type { BenchOptions } from './options.js';
import { nodeArgsFor } from './runner.js';

const READY_TIMEOUT_MS = 30_000;

export interface RunningService {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the real service (src/commands/start.ts) in its own process on a free port against `db` (one
 * server or several, listed in DB_HOST), with `workers` worker processes. Its
 * per-request log goes to /dev/null by default, so a slow reader can never be the bottleneck.
 * With `profile`, Node writes a .cpuprofile of the whole run into bench/results/profiles/.
 * `entry` runs another build of the service instead (a baseline's compiled entry, or its TypeScript one
 * through tsx: see baseline.ts). `launcher` is a command the node process runs under (valgrind, say),
 * with the time its start may take.
 */
export async function startService(
  db: DbConfig,
  accessPassword: string,
  { serviceLog: log, profile, metrics, workers = 1, env: extraEnv = {} }: Pick<BenchOptions, 'serviceLog' | 'profile'> &
    Partial<Pick<BenchOptions, 'metrics' | 'workers'>> & { env?: Record<string, string> },
  entry?: string,
  launcher: { command: string[]; nodeFlags: string[]; readyTimeoutMs: number } = { command: [], nodeFlags: [], readyTimeoutMs: READY_TIMEOUT_MS },
): Promise<RunningService> {
  const port = await freeTcpPort();
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DB_HOST: serverName(db),
    DB_USER: db.user,
    DB_PASSWORD: db.password,
    DB_NAME: db.database,
    ACCESS_PASSWORD: accessPassword,
    WORKERS: String(workers),
    METRICS: metrics ? 'on' : 'off',
    // No load balancer to leave: stopChild's SIGKILL would otherwise come before the drain (and the profile).
    SHUTDOWN_DELAY_S: '0',
    ...extraEnv,
  };
  const devNull = log === 'null' ? openSync('/dev/null', 'w') : undefined;
  const stdio: StdioOptions = ['ignore', devNull ?? 'pipe', 'pipe'];
  const nodeArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', join(projectRoot, 'bench', 'results', 'profiles')] : [];
  const script = entry ? [...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry] : nodeArgsFor(log === 'off' ? 'bench/quiet-service.ts' : 'src/commands/start.ts');
  const [command, ...args] = [...launcher.command, process.execPath, ...launcher.nodeFlags, ...nodeArgs, ...script];
  const child = startChild(command!, args, stdio, env);
  if (devNull !== undefined) closeSync(devNull);
  child.stdout?.resume();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));

  const baseUrl = `${extraEnv.TLS_CERT_FILE ? 'https' : 'http'}://127.0.0.1:${port}`;
  const stop = () => stopChild(child);
  try {
    await withTimeout(waitUntilReady(baseUrl, () => hasExited(child)), launcher.readyTimeoutMs, 'service start');
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return { baseUrl, pid: child.pid!, stop };
}

async function waitUntilReady(baseUrl: string, exited: () => boolean): Promise<void> {
  for (;;) {
    if (exited()) throw new Error('service exited during start');
    const ready = await readyzAnswers(baseUrl);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** /readyz answers 200; over HTTPS the service's own certificate is not checked (the benchmark makes it). */
function readyzAnswers(baseUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const get = baseUrl.startsWith('https:') ? httpsGet : httpGet;
    get(`${baseUrl}/readyz`, { rejectUnauthorized: false }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    }).on('error', () => resolve(false));
  });
}
