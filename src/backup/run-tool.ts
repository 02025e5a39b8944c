import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { BackupError } from './backup-error.js';

export interface ToolRun {
  /** A file descriptor to read from; nothing by default. */
  stdin?: number;
  /** A file descriptor to write to; collected and returned by default. */
  stdout?: number;
}

/** Variables the client programs read on their own: unset, so that only the option file decides where they connect. */
const CLIENT_VARIABLES = ['MYSQL_PWD', 'MYSQL_HOST', 'MYSQL_TCP_PORT', 'MYSQL_UNIX_PORT', 'MYSQL_HISTFILE'];

/**
 * Runs a client program to its end and resolves with what it printed; rejects with a BackupError
 * naming the program and the last lines of its stderr when it fails. SIGINT and SIGTERM received
 * meanwhile are passed on to it, so that the caller's clean-up still runs after it ends.
 */
export function runTool(command: string, args: string[], io: ToolRun = {}): Promise<string> {
  const env = { ...process.env };
  for (const name of CLIENT_VARIABLES) delete env[name];
  const child = spawn(command, args, { env, stdio: [io.stdin ?? 'ignore', io.stdout ?? 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise<string>((resolve, reject) => {
    child.once('error', (error) => reject(new BackupError(`${command} could not run: ${error.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) return resolve(stdout);
      const said = stderr.trim().split('\n').slice(-3).join('; ');
      reject(new BackupError(`${basename(command)} failed (${signal ?? `exit ${code}`})${said === '' ? '' : `: ${said}`}`));
    });
  }).finally(() => {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
  });
}
