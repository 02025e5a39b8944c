import { entryDefaults, loadConfig } from '../config/environment.js';
import { dropOutputOnceReaderGone } from '../log/closed-stdout.js';
import { createLogger } from '../log/logger.js';
import { planSchema } from '../startup/migration-plan.js';
import type { SchemaVersions } from '../startup/migrations.js';
import { printBuildProgress } from '../startup/build-progress.js';
import { ensureSchema } from '../startup/schema.js';
import { schemaNeeds } from '../startup/schema-needs.js';
import { reportCommandFailure } from '../startup/command-failure.js';
import { openCommandDatabase } from '../embedded-db/service-database.js';

/**
 * `npm run db:migrate`: what the service does to the schema at start, now: the users table created
 * if missing, pending migrations applied (each logged with its duration), the unique email index as
 * UNIQUE_EMAIL says; then one line saying what was done, the version the database is at and the
 * one these settings need. `-- --dry-run` prints the statements that would run, as SQL a client
 * runs as printed (`| mariadb`), and changes nothing. With the embedded database it works through
 * the running service's server when there is one.
 */
const dryRun = process.argv.includes('--dry-run');
dropOutputOnceReaderGone();
try {
  const config = loadConfig(process.env, entryDefaults());
  const database = await openCommandDatabase(config);
  const where = `${config.db.database} on ${database.shown}`;
  const needs = schemaNeeds(config);
  try {
    if (dryRun) {
      const { statements, versions } = await planSchema(database.db, needs);
      const state = `${where} ${versionsText(versions)}`;
      if (statements.length === 0) console.log(`-- Dry run: nothing to do; ${state}`);
      else console.log(`-- Dry run, nothing changed; ${state} What would run:\n${statements.map(({ why, statement }) => `-- ${why}\n${statement};`).join('\n')}`);
    } else {
      const logger = createLogger((line) => process.stdout.write(line), config.logFormat ?? 'pretty');
      const report = await ensureSchema(database.db, { logger, ...needs, progress: printBuildProgress(database.db.database, (line) => console.log(line)) });
      const done = [
        ...(report.table === 'created' ? ['created and seeded the users table'] : []),
        ...(report.applied.length > 0 ? [`applied ${report.applied.length} migration${report.applied.length === 1 ? '' : 's'}`] : []),
        ...(report.uniqueEmail.built ? ['built the unique email index'] : []),
      ];
      console.log(done.length === 0 ? `No migration pending: ${where} ${versionsText(report.versions)}` : `${where}: ${done.join(', ')}; it ${versionsText(report.versions)}`);
    }
  } finally {
    await database.stop();
  }
} catch (error) {
  reportCommandFailure('db:migrate', error);
}

/** `is at schema version 9; these settings need version 3.`: where the database is, and what EVENTS and the rest call for. */
function versionsText({ version, needed }: SchemaVersions): string {
  const at = version === undefined ? 'has no schema version yet' : `is at schema version ${version}`;
  return `${at}; these settings need version ${needed}.`;
}
