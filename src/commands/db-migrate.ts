import { entryDefaults, loadConfig } from '../config/environment.js';
import { createLogger } from '../log/logger.js';
import { planSchema } from '../startup/migration-plan.js';
import { latestVersion } from '../startup/migrations.js';
import { ensureSchema } from '../startup/schema.js';
import { reportCommandFailure } from '../startup/command-failure.js';
import { openServiceDatabase } from '../embedded-db/service-database.js';

/**
 * `npm run db:migrate`: what the service does to the schema at start, now: the users table created
 * if missing, pending migrations applied (each logged with its duration), the unique email index as
 * UNIQUE_EMAIL says; then one line saying what was done. `-- --dry-run` prints the statements that
 * would run, as SQL, and changes nothing.
 */
const dryRun = process.argv.includes('--dry-run');
try {
  const config = loadConfig(process.env, entryDefaults());
  const database = await openServiceDatabase(config);
  const where = `${config.db.database} on ${database.shown}`;
  const events = config.events !== undefined;
  const version = latestVersion({ events });
  try {
    if (dryRun) {
      const plan = await planSchema(database.db, config.uniqueEmail, events);
      if (plan.length === 0) console.log(`-- Dry run: nothing to do; ${where} is at schema version ${version}.`);
      else console.log(`-- Dry run, nothing changed. What would run on ${where}:\n${plan.map(({ why, statement }) => `-- ${why}\n${statement};`).join('\n')}`);
    } else {
      const logger = createLogger((line) => process.stdout.write(line), config.logFormat ?? 'pretty');
      const report = await ensureSchema(database.db, { logger, uniqueEmail: config.uniqueEmail, events });
      const done = [
        ...(report.table === 'created' ? ['created and seeded the users table'] : []),
        ...(report.applied.length > 0 ? [`applied ${report.applied.length} migration${report.applied.length === 1 ? '' : 's'}`] : []),
        ...(report.uniqueEmail.built ? ['built the unique email index'] : []),
      ];
      console.log(
        done.length === 0
          ? `No migration pending: ${where} is at schema version ${version}.`
          : `${where}: ${done.join(', ')}; schema version ${version}.`,
      );
    }
  } finally {
    await database.stop();
  }
} catch (error) {
  reportCommandFailure('db:migrate', error);
}
