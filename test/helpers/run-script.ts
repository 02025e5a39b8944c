import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { serverName } from '../../src/config/db-servers.js';
import type { DbConfig } from '../../src/config/environment.js';
import { projectRoot } from '../../src/paths.js';
import { SETTINGS } from '../../src/config/setting-names.js';

/**
 * A script of the project (`src/commands/db-init.ts`, a fixture, ...) as a child process, and the environment
 * it gets; runScript runs one to its end. The long-running service is child-service.ts's ServiceProcess.
 */

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildResult extends Exit {
  stdout: string;
  stderr: string;
}

/**
 * The environment a child gets: this process's (PATH, coverage settings) minus every variable
 * the service reads (and NODE_ENV), plus the given ones. SHUTDOWN_DELAY_S is 0 unless given: a test that signals
 * the service sees the drain start at once; the delay before it has tests of its own.
 */
export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [...SETTINGS, 'NODE_ENV']) delete env[name];
  return { ...env, SHUTDOWN_DELAY_S: '0', ...vars };
}

/** The DB_* variables that point the service at `db`: DB_HOST lists every server with its port. */
export function dbEnv(db: DbConfig): Record<string, string> {
  return { DB_HOST: serverName(db), DB_USER: db.user, DB_PASSWORD: db.password, DB_NAME: db.database };
}

/** tsx's loader by its full path, so that a child can run in a folder of its own. */
const tsxLoader = import.meta.resolve('tsx');

export interface ScriptOptions {
  /** The child's working directory; the project root by default. */
  cwd?: string;
  /** Arguments after the script, e.g. `--embedded-by-default` as `npm start` passes it. */
  args?: string[];
  /** A command the child runs under, e.g. `ip netns exec <name>` to run it in a network namespace. */
  wrapper?: string[];
}

/** `node --import tsx <script>` (a path in the project), with stdout and stderr piped. */
export function spawnScript(script: string, vars: Record<string, string>, options: ScriptOptions = {}): ChildProcess {
  const [command, ...args] = [...(options.wrapper ?? []), process.execPath, '--import', tsxLoader, join(projectRoot, script), ...(options.args ?? [])];
  return spawn(command!, args, {
    cwd: options.cwd ?? projectRoot,
    env: childEnv(vars),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a TypeScript entry point of the project (`src/commands/db-init.ts`, ...) to the end. */
export function runScript(
  script: string,
  vars: Record<string, string>,
  timeoutMs = 20_000,
  options: ScriptOptions = {},
): Promise<ChildResult> {
  const child = spawnScript(script, vars, options);
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
