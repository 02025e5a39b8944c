import { readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { projectRoot } from '../src/paths.js';

/** A process of this machine, as /proc shows it. */
export interface SeenProcess {
  pid: number;
  parent: number;
  args: string[];
}

/**
 * Every process whose environment holds `name=value`: what a test run started, wherever it went
 * (a new process group or session included), as long as it kept the environment it was given.
 */
export function processesMarked(name: string, value: string): SeenProcess[] {
  const mark = `${name}=${value}`;
  const found: SeenProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark)) continue;
      // The parent is the second field after the command, which is in parentheses and may hold spaces.
      const parent = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      found.push({ pid, parent, args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      // It ended meanwhile, or is not ours to read.
    }
  }
  return found;
}

/** The processes Node's test runner started for its files (its children), each with the file it runs (its last argument). */
export function testFileProcesses(marked: SeenProcess[]): Array<SeenProcess & { file: string }> {
  const runners = new Set(marked.filter((seen) => seen.args.includes('--test')).map((seen) => seen.pid));
  return marked.filter((seen) => runners.has(seen.parent) && seen.args.length > 0).map((seen) => ({ ...seen, file: seen.args.at(-1)! }));
}

/**
 * Watches the run's test files: one still running after `limitMs` is ended (SIGKILL), and said in
 * one line, so that a test that hangs fails the run in bounded time instead of holding it until the
 * CI's own limit, and the run names it. Returns the function that stops the watch.
 */
export function watchTestFiles(name: string, value: string, limitMs: number, say: (line: string) => void): () => void {
  const firstSeen = new Map<number, number>();
  const timer = setInterval(() => {
    const now = Date.now();
    for (const seen of testFileProcesses(processesMarked(name, value))) {
      const since = firstSeen.get(seen.pid) ?? now;
      firstSeen.set(seen.pid, since);
      if (now - since < limitMs) continue;
      say(`${relative(projectRoot, seen.file)} was still running after ${Math.round(limitMs / 1000)} s: ended`);
      kill(seen.pid);
    }
  }, Math.min(10_000, limitMs));
  timer.unref();
  return () => clearInterval(timer);
}

/** Ends every process still holding the mark and says which, in one line. */
export function endLeftovers(name: string, value: string, say: (line: string) => void): void {
  const left = processesMarked(name, value);
  if (left.length === 0) return;
  say(`left running by the tests, now ended: ${left.map((seen) => `${seen.args.slice(0, 3).join(' ')} (${seen.pid})`).join('; ')}`);
  for (const seen of left) kill(seen.pid);
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // It ended meanwhile.
  }
}
