import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../../src/paths.js';
import type { DbConfig } from '../../../src/config.js';

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment a child gets: this process's (PATH, coverage settings) minus every variable
 * the service reads, plus the given ones.
 */
export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DB_HOST', 'DB_PORT', 'DB_USER', 'DB_PASSWORD', 'DB_NAME', 'ACCESS_PASSWORD']) delete env[name];
  return { ...env, ...vars };
}

export function dbEnv(db: DbConfig): Record<string, string> {
  return { DB_HOST: db.host, DB_PORT: String(db.port), DB_USER: db.user, DB_PASSWORD: db.password, DB_NAME: db.database };
}

/** Runs a TypeScript entry point of the project (`src/db-init.ts`, ...) to the end. */
export function runScript(script: string, vars: Record<string, string>, timeoutMs = 20_000): Promise<ChildResult> {
  const child = spawnScript(script, vars);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export function spawnScript(script: string, vars: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: projectRoot,
    env: childEnv(vars),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** `node --import tsx src/main.ts` as a child, with its stdout split into log lines as they come. */
export class ServiceProcess {
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;
  private readonly waiters = new Set<() => void>();

  constructor(vars: Record<string, string>) {
    this.child = spawnScript('src/main.ts', vars);
    let partial = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop()!;
      this.lines.push(...parts);
      for (const wake of this.waiters) wake();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        for (const wake of this.waiters) wake();
        resolve({ code, signal });
      }),
    );
  }

  /** The first JSON log line with this `msg`, waiting for it (bounded). */
  async logEntry(msg: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.entries().find((entry) => entry.msg === msg);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`service exited before logging "${msg}": ${this.stderr}`);
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for "${msg}"`);
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, 200);
        this.waiters.add(wake);
      });
    }
  }

  /** The port from the `listening` log line (PORT=0 lets the system choose it). */
  async port(): Promise<number> {
    return Number((await this.logEntry('listening')).port);
  }

  entries(): Array<Record<string, unknown>> {
    return this.lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends the child for good if a test left it running. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}
