import { parseArgs } from 'node:util';
import { BackupError } from '../backup/backup-error.js';
import { findClientTools } from '../backup/client-tools.js';
import { defaultBackupFile, dumpDatabase } from '../backup/dump.js';
import { openToolDatabase } from '../backup/tool-database.js';
import { entryDefaults, loadConfig } from '../config/environment.js';
import { reportCommandFailure } from '../startup/command-failure.js';

/**
 * `npm run db:backup [-- --out FILE]`: a consistent dump of the configured (or embedded) database,
 * taken while the service runs, to FILE or to backups/<database>-<UTC time>.sql (0600). The
 * embedded database is reached on the running service's socket, or started for the dump and
 * stopped afterwards.
 */
try {
  const out = options();
  const config = loadConfig(process.env, entryDefaults());
  const tools = findClientTools(config.embedded?.bin);
  const file = out ?? defaultBackupFile(config.db.database);
  const database = await openToolDatabase(config, { existing: true });
  try {
    const bytes = await dumpDatabase(tools.dump, database.target, config.db.database, file);
    console.log(`Backed up ${config.db.database} on ${database.shown} to ${file} (${bytes} bytes, readable by this user only).`);
  } finally {
    await database.stop();
  }
} catch (error) {
  reportCommandFailure('db:backup', error);
}

function options(): string | undefined {
  try {
    const { values } = parseArgs({ options: { out: { type: 'string' }, 'embedded-by-default': { type: 'boolean' } } });
    if (values.out === '') throw new Error('--out needs a file name');
    return values.out;
  } catch (error) {
    throw new BackupError(`${(error as Error).message}. Usage: npm run db:backup [-- --out FILE]`);
  }
}
