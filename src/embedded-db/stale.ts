import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { EmbeddedServerError } from './embedded-server-error.js';
import { removeEarlierSocketDir } from './socket-place.js';

/** The files a server's earlier run may have left behind. */
export interface RunFiles {
  dataDir: string;
  /** The server's own pid file. */
  pidFile: string;
  /** The pid of the process that started the server (the launcher's), beside it. */
  ownerFile: string;
  /** A socket with a fixed place; one in a private temp folder goes with that folder. */
  socketPath: string | undefined;
}

/**
 * Clears what an earlier run left: a server whose starter died (a crashed service) is stopped, so
 * it no longer holds the data files; stale pid and socket files (and the private folder of a socket
 * in the temp folder) are removed. A server whose starter
 * is still alive belongs to someone else, and the data directory is refused as in use.
 */
export async function clearEarlierRun(files: RunFiles, stopTimeoutMs: number): Promise<void> {
  const serverPid = readPid(files.pidFile);
  if (serverPid !== undefined && isServerOf(serverPid, files.dataDir)) {
    const owner = readPid(files.ownerFile);
    if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
      throw new EmbeddedServerError(
        `The database in ${files.dataDir} is in use by another process (pid ${owner}, server pid ${serverPid}).`,
      );
    }
    await stopPid(serverPid, stopTimeoutMs);
  }
  rmSync(files.pidFile, { force: true });
  rmSync(files.ownerFile, { force: true });
  if (files.socketPath !== undefined) removeSocket(files.socketPath);
  removeEarlierSocketDir(files.dataDir);
}

export function recordOwner(files: RunFiles): void {
  writeFileSync(files.ownerFile, `${process.pid}\n`, { mode: 0o600 });
}

/** SIGTERM (a clean shutdown), then SIGKILL as the last resort once timeoutMs has passed. */
export async function stopPid(pid: number, timeoutMs: number): Promise<void> {
  if (!signal(pid, 'SIGTERM')) return;
  if (await exitsWithin(pid, timeoutMs)) return;
  signal(pid, 'SIGKILL');
  await exitsWithin(pid, timeoutMs);
}

function isAlive(pid: number): boolean {
  return signal(pid, 0);
}

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (error) {
    // EPERM: it exists but is not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exitsWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A pid is reused after its process ended: only a live server started on this data directory counts. */
function isServerOf(pid: number, dataDir: string): boolean {
  if (!isAlive(pid)) return false;
  return commandLine(pid).includes(`--datadir=${dataDir}`);
}

function commandLine(pid: number): string {
  const proc = `/proc/${pid}/cmdline`;
  if (existsSync(proc)) return readFileSync(proc, 'utf8').replaceAll('\0', ' ');
  try {
    return execFileSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' });
  } catch {
    return '';
  }
}

function removeSocket(socketPath: string): void {
  try {
    if (lstatSync(socketPath).isSocket()) rmSync(socketPath);
  } catch {
    // Not there: nothing to clear.
  }
  // MySQL 8 keeps a lock file beside its socket.
  rmSync(`${socketPath}.lock`, { force: true });
}
