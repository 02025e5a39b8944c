import type { ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { DbConfig } from '../../src/config/environment.js';
import { pollUntil } from './poll-until.js';
import { dbEnv, spawnScript, type Exit, type ScriptOptions } from './run-script.js';
import { TEST_PASSWORD } from './service.js';

/**
 * The service run as production runs it, `node --import tsx src/commands/start.ts`, in a child process: for
 * tests of what only a whole process shows (signals, exit codes, WORKERS=N, the embedded database).
 * In-process services on port 0 are in service.ts; scripts run to their end in run-script.ts.
 */

/** `node --import tsx src/commands/start.ts` (or another script) as a child, with its stdout split into log lines as they come. */
export class ServiceProcess {
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcess;
  private readonly waiters = new Set<() => void>();
  /** Every line is read: the exit can be reported before the last lines written. */
  private readonly stdoutClosed: Promise<void>;

  constructor(vars: Record<string, string>, script = 'src/commands/start.ts', options: ScriptOptions = {}) {
    this.child = spawnScript(script, vars, options);
    let partial = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop()!;
      this.lines.push(...parts);
      for (const wake of this.waiters) wake();
    });
    this.stdoutClosed = new Promise((resolve) => this.child.stdout!.once('close', resolve));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        for (const wake of this.waiters) wake();
        resolve({ code, signal });
      }),
    );
  }

  /** The first JSON log line with this `msg` from the `since`-th line on (entries().length before an action: its answer), waiting for it (bounded). */
  async logEntry(msg: string, timeoutMs = 20_000, since = 0): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    const first = () => this.entries().slice(since).find((entry) => entry.msg === msg);
    for (;;) {
      const found = first();
      if (found) return found;
      if (this.hasExited()) {
        await Promise.race([this.stdoutClosed, new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref())]);
        const last = first();
        if (last) return last;
        throw new Error(`service exited before logging "${msg}": ${this.stderr}`);
      }
      if (Date.now() > deadline) {
        // What it did say, so that a start slower than the bound can be told from one that hung.
        const said = this.entries().map((entry) => entry.msg).slice(-10).join(', ');
        throw new Error(`timed out waiting for "${msg}" after ${timeoutMs} ms; logged so far: [${said}]; stderr: ${this.stderr.slice(-500)}`);
      }
      // Woken by the next line or the exit; the timer only bounds the wait.
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

  /** The port from the `listening` log line (PORT=0 lets the system choose it); `timeoutMs` as logEntry's. */
  async port(timeoutMs?: number): Promise<number> {
    return Number((await this.logEntry('listening', timeoutMs)).port);
  }

  /** Every stdout line that is JSON (the service's log), parsed. */
  entries(): Array<Record<string, unknown>> {
    return this.lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends the child for good if a test left it running; resolves with how it exited. */
  async stop(): Promise<Exit> {
    if (!this.hasExited()) this.child.kill('SIGKILL');
    return this.exited;
  }

  private hasExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }
}

export interface ChildService {
  baseUrl: string;
  process: ServiceProcess;
}

/**
 * The service on 127.0.0.1 and a free port, against `db` (`env` adds or replaces variables);
 * resolves once it logged 'listening', /readyz answers 200 and every worker (one per WORKERS) has
 * said 'schema ready': a worker still waiting for its primary's word would answer the API 503.
 */
export async function spawnService(db: DbConfig, env: Record<string, string> = {}): Promise<ChildService> {
  const child = new ServiceProcess({ ...dbEnv(db), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, ...env });
  try {
    // Bounded generously: on two busy cores (four test files at once beside a Galera cluster) six
    // processes starting under tsx have taken half a minute.
    const listening = await child.logEntry('listening', 60_000);
    const baseUrl = `http://127.0.0.1:${String(listening.port)}`;
    await pollUntil(
      'the child service to be ready',
      async () => {
        const res = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
        await res?.body?.cancel();
        return res?.status === 200 ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const workers = env.WORKERS === undefined ? 1 : env.WORKERS === 'auto' ? availableParallelism() : Number(env.WORKERS);
    await pollUntil('every worker to serve', () => (child.entries().filter((entry) => entry.msg === 'schema ready').length >= workers ? true : undefined), {
      timeoutMs: 30_000,
    });
    return { baseUrl, process: child };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
