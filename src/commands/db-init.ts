import { entryDefaults, loadConfig } from '../config/environment.js';
import { ensureUsersTable } from '../startup/schema.js';
import { reportCommandFailure } from '../startup/command-failure.js';
import { openCommandDatabase } from '../embedded-db/service-database.js';

/** `npm run db:init`: applies schema.sql to the configured (or embedded) database now, and says what it did. */
try {
  const config = loadConfig(process.env, entryDefaults());
  const database = await openCommandDatabase(config);
  try {
    const outcome = await ensureUsersTable(database.db);
    console.log(
      outcome === 'created'
        ? `Created ${config.db.database}.users on ${database.shown} and seeded the ten initial users.`
        : `${config.db.database}.users already exists on ${database.shown}; left untouched.`,
    );
  } finally {
    await database.stop();
  }
} catch (error) {
  reportCommandFailure('db:init', error);
}
