import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** The pids of database servers running on this data directory (Linux: read from /proc). */
export function serversOn(dataDir: string): number[] {
  return serversWith(`--datadir=${dataDir}`);
}

/** The pids of processes started with this exact argument, such as `--port=40123`. */
export function serversWith(argument: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (command.includes(argument)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Ends whatever a test left running on the data directory, so that a failed test leaves nothing behind. */
export function killServersOn(dataDir: string): void {
  for (const pid of serversOn(dataDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Whether a process of this pid exists (signal 0 checks without sending anything). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A temporary working directory for a service on the embedded database, with that database's
 * default data directory (./data/mysql) under it. After the file's tests, any server left on it is
 * killed and the directory removed.
 */
export function embeddedWorkDir(prefix: string): { workDir: string; dataDir: string } {
  const workDir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const dataDir = join(workDir, 'data', 'mysql');
  after(() => {
    killServersOn(dataDir);
    rmSync(workDir, { recursive: true, force: true });
  });
  return { workDir, dataDir };
}
