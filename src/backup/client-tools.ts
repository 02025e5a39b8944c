import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { isExecutableFile, SYSTEM_DIRS } from '../embedded-db/binaries.js';
import { BackupError } from './backup-error.js';

/** A client program of MariaDB or MySQL: `mariadb-dump`/`mysqldump` or `mariadb`/`mysql`. */
export interface ClientTool {
  path: string;
  /** MySQL's mysqldump takes options MariaDB's does not know (and the other way round). */
  flavour: 'mariadb' | 'mysql';
}

export interface ClientTools {
  dump: ClientTool;
  client: ClientTool;
}

const DUMP_NAMES = ['mariadb-dump', 'mysqldump'];
const CLIENT_NAMES = ['mariadb', 'mysql'];

export const clientAdvice =
  'Install the MariaDB client programs (apt-get install mariadb-client, brew install mariadb), which come with mariadb-server.';

/**
 * The dump and command-line client, found as the embedded server's binaries are: beside the server
 * named by DB_EMBEDDED_BIN (a tarball keeps them together), then on PATH and in the usual system
 * folders; the MariaDB names first. Throws a BackupError that says what to install otherwise.
 */
export function findClientTools(serverBin?: string, path = process.env.PATH ?? ''): ClientTools {
  const dirs = [
    ...(serverBin ? [dirname(serverBin), join(dirname(dirname(serverBin)), 'bin')] : []),
    ...path.split(delimiter).filter((dir) => dir !== ''),
    '/usr/bin',
    ...SYSTEM_DIRS,
  ];
  return { dump: findTool(DUMP_NAMES, dirs), client: findTool(CLIENT_NAMES, dirs) };
}

function findTool(names: string[], dirs: string[]): ClientTool {
  for (const name of names) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (isExecutableFile(path)) return { path, flavour: flavourOf(path) };
    }
  }
  throw new BackupError(`Neither ${names.join(' nor ')} was found. ${clientAdvice}`);
}

function flavourOf(path: string): ClientTool['flavour'] {
  const probe = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return /mariadb/i.test(probe.stdout ?? '') ? 'mariadb' : 'mysql';
}
