import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { EmbeddedServerError } from './embedded-server-error.js';

export type ServerFlavour = 'mariadb' | 'mysql';

export interface ServerBinaries {
  /** The server itself: `mariadbd` or `mysqld`. */
  server: string;
  flavour: ServerFlavour;
  /** `mariadb-install-db` for MariaDB; MySQL initialises with the server (`--initialize-insecure`). */
  installDb?: string;
  /** The server's `--version` line, for the log. */
  version: string;
}

/** Where findServerBinaries looks; PATH and the usual system folders by default. */
export interface BinarySearch {
  path?: string;
  systemDirs?: string[];
}

/** Where distributions and installers put the server when it is not on PATH. */
export const SYSTEM_DIRS = [
  '/usr/sbin',
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/libexec',
  '/usr/local/mysql/bin',
  '/usr/local/mariadb/bin',
  '/opt/homebrew/bin',
  '/opt/homebrew/opt/mariadb/bin',
  '/opt/homebrew/opt/mysql/bin',
  '/usr/local/opt/mariadb/bin',
  '/usr/local/opt/mysql/bin',
];
const SERVER_NAMES = ['mariadbd', 'mysqld'];
const INSTALL_DB_NAMES = ['mariadb-install-db', 'mysql_install_db'];

export const installAdvice =
  'Install a MariaDB or MySQL server (apt-get install mariadb-server, brew install mariadb), ' +
  'name its binary with DB_EMBEDDED_BIN, or set DB_HOST to a server you run yourself.';

/**
 * The binaries of an installed MariaDB or MySQL server: the one named by `explicit` (used as given
 * or refused, never replaced by another), else the first `mariadbd` or `mysqld` on PATH or in the
 * usual system folders. Throws an EmbeddedServerError that says what to install otherwise.
 */
export function findServerBinaries(explicit?: string, search: BinarySearch = {}): ServerBinaries {
  const path = search.path ?? process.env.PATH ?? '';
  const systemDirs = search.systemDirs ?? SYSTEM_DIRS;
  if (explicit !== undefined && explicit !== '') {
    if (!isExecutableFile(explicit)) {
      throw new EmbeddedServerError(`DB_EMBEDDED_BIN names no executable file: ${explicit}. ${installAdvice}`);
    }
    return describeServer(explicit, path);
  }
  const dirs = [...path.split(delimiter).filter((dir) => dir !== ''), ...systemDirs];
  for (const name of SERVER_NAMES) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (isExecutableFile(candidate)) return describeServer(candidate, path);
    }
  }
  throw new EmbeddedServerError(`No MariaDB or MySQL server binary (mariadbd, mysqld) was found. ${installAdvice}`);
}

function describeServer(server: string, path: string): ServerBinaries {
  const probe = spawnSync(server, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const version = (probe.stdout ?? '').trim();
  if (probe.status !== 0 || version === '') {
    throw new EmbeddedServerError(`${server} --version did not answer; is it a MariaDB or MySQL server? ${installAdvice}`);
  }
  if (!/mariadb/i.test(version)) return { server, flavour: 'mysql', version };
  const installDb = findInstallDb(server, path);
  if (installDb === undefined) {
    throw new EmbeddedServerError(`${server} is MariaDB, but mariadb-install-db was not found beside it or on PATH. ${installAdvice}`);
  }
  return { server, flavour: 'mariadb', installDb, version };
}

/** Beside the server first (a tarball keeps both in bin/ or scripts/), then PATH and system folders. */
function findInstallDb(server: string, path: string): string | undefined {
  const home = dirname(dirname(server));
  const dirs = [
    dirname(server),
    join(home, 'bin'),
    join(home, 'scripts'),
    ...path.split(delimiter).filter((dir) => dir !== ''),
    '/usr/bin',
    ...SYSTEM_DIRS,
  ];
  for (const name of INSTALL_DB_NAMES) {
    for (const dir of dirs) {
      if (isExecutableFile(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

export function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
