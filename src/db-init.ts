import { ConfigError, loadConfig } from './config.js';
import { ensureSchema } from './db/schema.js';

/** `npm run db:init`: applies schema.sql to the configured database now, and says what it did. */
try {
  const { db } = loadConfig();
  const outcome = await ensureSchema(db);
  console.log(
    outcome === 'created'
      ? `Created ${db.database}.users and seeded the ten initial users.`
      : `${db.database}.users already exists; left untouched.`,
  );
} catch (error) {
  const reason = error instanceof ConfigError ? `Invalid configuration: ${error.message}` : String(error);
  console.error(`db:init failed: ${reason}`);
  process.exitCode = 1;
}
