import { openSync, readSync } from 'node:fs';
import { sql } from '../db/statements.js';
import { BackupError } from './backup-error.js';
import { writeClientOptions, type ClientTarget } from './client-options.js';
import type { ClientTool } from './client-tools.js';
import { runTool } from './run-tool.js';

/** What mariadb-dump and mysqldump write near the top (MariaDB may put a sandbox-mode line first). */
const DUMP_HEADER = /^-- (MariaDB|MySQL) dump /m;

/**
 * Opens a dump for reading, refusing a file that is missing or was not written by mariadb-dump or
 * mysqldump, before anything is started or changed. Returns its file descriptor.
 */
export function openDump(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new BackupError(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): nothing was changed.`);
  }
  const head = Buffer.alloc(1024);
  // At position 0 without moving the file's offset: the client reads the file from its start.
  const length = readSync(fd, head, 0, head.length, 0);
  if (!DUMP_HEADER.test(head.subarray(0, length).toString('utf8'))) {
    throw new BackupError(`${file} is not a dump of mariadb-dump or mysqldump (as db:backup writes): nothing was changed.`);
  }
  return fd;
}

/**
 * Loads the dump read from `fd` into `database` (created when missing) with the command-line
 * client. A dump of db:backup drops each table it holds and creates it again with the dump's rows:
 * the users table's rows are replaced, not merged. Resolves with the number of users afterwards.
 */
export async function loadDump(client: ClientTool, target: ClientTarget, database: string, fd: number): Promise<number> {
  const options = writeClientOptions(target);
  try {
    await runTool(client.path, [options.arg, `--execute=${sql.createDatabase(database)}`]);
    await runTool(client.path, [options.arg, `--database=${database}`], { stdin: fd });
    const count = await runTool(client.path, [options.arg, '--batch', '--skip-column-names', `--database=${database}`, '--execute=SELECT COUNT(*) FROM users']);
    return Number(count.trim());
  } finally {
    options.remove();
  }
}
