import { closeSync, existsSync, linkSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BackupError } from './backup-error.js';
import { writeClientOptions, type ClientTarget } from './client-options.js';
import type { ClientTool } from './client-tools.js';
import { runTool } from './run-tool.js';

/** `backups/<database>-<UTC time>.sql`, e.g. `backups/restapi-20250301T120000Z.sql`: sorts by time, names the database. */
export function defaultBackupFile(database: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
  return join('backups', `${database}-${stamp}.sql`);
}

/**
 * One consistent snapshot while the service writes: `--single-transaction` reads every table in
 * one InnoDB transaction (no locks, no half-applied write), with routines and triggers; tablespaces
 * need a privilege DB_USER may lack and are of no use to a restore. MySQL's mysqldump would also
 * record GTIDs that a restore into another server refuses.
 */
export function dumpArgs(tool: ClientTool): string[] {
  return [
    '--single-transaction',
    '--routines',
    '--triggers',
    '--no-tablespaces',
    '--default-character-set=utf8mb4',
    ...(tool.flavour === 'mysql' ? ['--set-gtid-purged=OFF'] : []),
  ];
}

/**
 * Dumps `database` to `file`, readable by its owner only (0600); its folder is made (0700) when
 * missing. The dump goes to `<file>.partial` first and takes its name only once complete, without
 * replacing a file of that name: an existing backup is never overwritten, nor a failed one left
 * looking like a backup. Resolves with the file's size in bytes.
 */
export async function dumpDatabase(tool: ClientTool, target: ClientTarget, database: string, file: string): Promise<number> {
  if (existsSync(file)) throw new BackupError(`${file} exists already: name another file with --out.`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.partial`;
  let out: number;
  try {
    out = openSync(partial, 'wx', 0o600);
  } catch (error) {
    throw new BackupError(`${partial} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const options = writeClientOptions(target);
  try {
    await runTool(tool.path, [options.arg, ...dumpArgs(tool), database], { stdout: out });
    closeSync(out);
    out = -1;
    // A link fails if `file` appeared meanwhile, where a rename would replace it.
    linkSync(partial, file);
    return statSync(file).size;
  } finally {
    if (out !== -1) closeSync(out);
    rmSync(partial, { force: true });
    options.remove();
  }
}
