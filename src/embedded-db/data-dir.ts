import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ServerBinaries } from './binaries.js';
import { EmbeddedServerError } from './embedded-server-error.js';

/** Present once a data directory holds an initialised server: the system schema. */
const MARKER = 'mysql';

export function isInitialised(dataDir: string): boolean {
  return existsSync(join(dataDir, MARKER));
}

/**
 * Initialises an empty data directory for the server, with `root` reachable without a password
 * (on the socket and on 127.0.0.1): what keeps other accounts out is that the socket lies in a
 * folder only this user can enter, and that no TCP port is opened unless one is asked for. The work is done in a sibling folder and moved in afterwards,
 * the system schema last: an interrupted first start leaves no half-made data directory behind.
 * Returns false when the directory was initialised already.
 */
export async function initialiseDataDir(binaries: ServerBinaries, dataDir: string, logFile: string): Promise<boolean> {
  if (isInitialised(dataDir)) return false;
  mkdirSync(dataDir, { recursive: true });
  const work = mkdtempSync(join(dirname(dataDir), `.${basename(dataDir)}-init-`));
  // MySQL's --initialize wants a folder that does not exist yet; mariadb-install-db either way.
  const staging = join(work, 'data');
  // Bootstraps running side by side in one temp folder remove each other's temporary tables.
  const tmp = join(work, 'tmp');
  mkdirSync(tmp);
  try {
    await runToLog(initCommand(binaries, staging, tmp), logFile);
    const entries = readdirSync(staging).sort((a, b) => Number(a === MARKER) - Number(b === MARKER));
    for (const entry of entries) {
      // Left by a first start interrupted while moving in (the marker, moved last, is absent).
      rmSync(join(dataDir, entry), { recursive: true, force: true });
      renameSync(join(staging, entry), join(dataDir, entry));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return true;
}

/** Runs as root when the service does (CI, containers): both servers refuse that unless told. */
export function userArgs(): string[] {
  return process.getuid?.() === 0 ? ['--user=root'] : [];
}

function initCommand(binaries: ServerBinaries, dataDir: string, tmp: string): [string, string[]] {
  if (binaries.flavour === 'mysql') {
    return [binaries.server, ['--no-defaults', '--initialize-insecure', `--datadir=${dataDir}`, `--tmpdir=${tmp}`, ...userArgs()]];
  }
  const home = dirname(dirname(binaries.server));
  // A MariaDB tarball keeps the tool in scripts/ and finds its files only when told where it lives.
  const basedir = binaries.installDb!.startsWith(join(home, 'scripts')) ? [`--basedir=${home}`] : [];
  return [
    binaries.installDb!,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      // Passed on to the bootstrapping server.
      `--tmpdir=${tmp}`,
      ...basedir,
      ...userArgs(),
    ],
  ];
}

function runToLog([command, args]: [string, string[]], logFile: string): Promise<void> {
  const log = openSync(logFile, 'a', 0o600);
  try {
    const child = spawn(command, args, { stdio: ['ignore', log, log] });
    return new Promise((resolve, reject) => {
      child.once('error', (error) => reject(new EmbeddedServerError(`${command} could not run: ${error.message}`)));
      child.once('exit', (code, signal) => {
        if (code === 0) return resolve();
        reject(new EmbeddedServerError(`${basename(command)} failed (${signal ?? `exit ${code}`}); see ${logFile}`));
      });
    });
  } finally {
    closeSync(log);
  }
}
