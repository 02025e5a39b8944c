import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { projectRoot } from '../src/paths.js';
import { nodeArgsFor } from './runner.js';

/**
 * Nothing the benchmark starts outlives it: every child is tracked and killed on exit, on
 * SIGINT/SIGTERM and when the overall deadline passes; cleanup tasks (dropping the database) run first.
 */
const children = new Set<ChildProcess>();
const cleanupTasks: Array<() => Promise<void>> = [];
const CLEANUP_TIMEOUT_MS = 10_000;

/** Starts a tracked child process from the project root. */
export function startChild(
  command: string,
  args: string[],
  stdio: StdioOptions,
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  const child = spawn(command, args, { cwd: projectRoot, stdio, env });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Starts a TypeScript file of this project (see runner.ts) with node, from the project root. */
export function startTsChild(
  script: string,
  stdio: StdioOptions,
  env: NodeJS.ProcessEnv = process.env,
  nodeFlags: string[] = [],
): ChildProcess {
  return startChild(process.execPath, [...nodeFlags, ...nodeArgsFor(script)], stdio, env);
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM, then SIGKILL if the child has not exited after graceMs. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (hasExited(child)) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(force);
}

export function onCleanup(task: () => Promise<void>): void {
  cleanupTasks.push(task);
}

let cleaning: Promise<void> | undefined;

/**
 * Stops every child and runs the cleanup tasks (latest first), each bounded in time. A signal and
 * the normal end may both ask: they share one cleanup, so neither exits while the other is midway.
 */
export function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map((child) => stopChild(child)));
    for (const task of cleanupTasks.reverse()) {
      await withTimeout(task(), CLEANUP_TIMEOUT_MS).catch((error: unknown) => console.error('cleanup failed:', error));
    }
  })();
  return cleaning;
}

/** Installs the signal handlers and a deadline after which the run is abandoned. */
export function guardRun(deadlineMs: number): void {
  const abandon = (reason: string, code: number): void => {
    console.error(`\n${reason}: stopping children and cleaning up`);
    void cleanUp().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => abandon('SIGINT', 130));
  process.once('SIGTERM', () => abandon('SIGTERM', 143));
  setTimeout(() => abandon(`deadline of ${Math.round(deadlineMs / 1000)} s exceeded`, 1), deadlineMs).unref();
  process.once('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Everything a child writes to stdout, parsed as one JSON document once it exits with status 0. */
export async function jsonOutput<T>(child: ChildProcess, timeoutMs: number, what: string): Promise<T> {
  return JSON.parse(await outputOnSuccess(child, timeoutMs, what)) as T;
}

/** The JSON after `mark` on the line of the child's stdout that starts with it, once the child exits with status 0. */
export async function jsonMarkedLine<T>(child: ChildProcess, mark: string, timeoutMs: number, what: string): Promise<T> {
  const stdout = await outputOnSuccess(child, timeoutMs, what);
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(mark));
  if (line === undefined) throw new Error(`${what} printed no "${mark.trim()}" line:\n${stdout}`);
  return JSON.parse(line.slice(mark.length)) as T;
}

/** Everything a child writes to stdout, once it exits with status 0; a failure carries its stderr. */
export async function outputOnSuccess(child: ChildProcess, timeoutMs: number, what: string): Promise<string> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await withTimeout(once(child, 'close'), timeoutMs, what).catch(async (error: unknown) => {
    await stopChild(child, 1000);
    throw error;
  })) as [number | null];
  if (code !== 0) throw new Error(`${what} exited with ${code}: ${stderr.trim()}`);
  return stdout;
}

/** The first line a running child writes to stdout, parsed as JSON. */
export async function firstJsonLine<T>(child: ChildProcess, timeoutMs: number, what: string): Promise<T> {
  const stdout = child.stdout;
  if (!stdout) throw new Error(`${what} has no stdout pipe`);
  let buffered = '';
  const line = new Promise<string>((resolve, reject) => {
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end !== -1) resolve(buffered.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code} before it was ready`)));
  });
  return JSON.parse(await withTimeout(line, timeoutMs, what)) as T;
}
