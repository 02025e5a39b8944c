import { closeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BackupError } from '../backup/backup-error.js';
import { findClientTools } from '../backup/client-tools.js';
import { loadDump, openDump } from '../backup/restore.js';
import { openToolDatabase } from '../backup/tool-database.js';
import { entryDefaults, loadConfig } from '../config/environment.js';
import { reportCommandFailure } from '../startup/command-failure.js';

const USAGE = 'Usage: npm run db:restore -- FILE (a dump of npm run db:backup; it replaces the users table\'s rows)';

/**
 * `npm run db:restore -- FILE`: loads a dump of db:backup into the configured (or embedded)
 * database. The users table, and every other table the dump holds, is replaced by the dump's:
 * rows written since the backup are gone afterwards. The embedded database is reached on the
 * running service's socket, or started for the restore and stopped afterwards.
 */
try {
  const file = dumpFile();
  const config = loadConfig(process.env, entryDefaults());
  const tools = findClientTools(config.embedded?.bin);
  const fd = openDump(file);
  try {
    const database = await openToolDatabase(config, { existing: false });
    const where = `${config.db.database} on ${database.shown}`;
    try {
      console.log(`Restoring ${file} into ${where}: this replaces the users table's rows (and every other table the dump holds) with the dump's.`);
      const users = await loadDump(tools.client, database.target, config.db.database, fd);
      console.log(`Restored ${file} into ${where}: the users table holds the dump's ${users} users; its earlier rows were replaced.`);
    } finally {
      await database.stop();
    }
  } finally {
    closeSync(fd);
  }
} catch (error) {
  reportCommandFailure('db:restore', error);
}

function dumpFile(): string {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ options: { 'embedded-by-default': { type: 'boolean' } }, allowPositionals: true }));
  } catch (error) {
    throw new BackupError(`${(error as Error).message}. ${USAGE}`);
  }
  if (positionals.length !== 1) throw new BackupError(`${positionals.length === 0 ? 'No dump file named' : 'Name one dump file'}: nothing was changed. ${USAGE}`);
  return positionals[0]!;
}
