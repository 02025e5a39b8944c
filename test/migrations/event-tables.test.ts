import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { latestVersion } from '../../src/startup/migrations.js';
import { migrationsFor } from '../../src/db/statements.js';
import { createTestDatabase } from '../helpers/database.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { logged, migrationRecords } from './support/schema-state.js';

const MIGRATE = 'src/commands/db-migrate.ts';
const EVENT_TABLES = ['event_batches', 'event_leases', 'event_sequence', 'user_events', 'webhook_attempts', 'webhook_deliveries', 'webhook_endpoints', 'webhook_subscriptions'];
/** What the settings need without EVENTS, and with it. */
const BASE = latestVersion({ events: false });
const WITH_EVENTS = latestVersion({ events: true });

const tables = async (db: Awaited<ReturnType<typeof createTestDatabase>>) =>
  (await db.query<Array<{ name: string }>>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() ')).map((row) => row.name).sort();

describe('the tables of change events are migrations, applied only with EVENTS=on', () => {
  test('without EVENTS the schema stops at version 3; with EVENTS=on, versions 4-9, 12 and 13 add the event tables (9 numbers events after commit; 12 and 13 hold the webhook endpoints and their attempts), and a second run finds nothing pending; the version the database is at and the one the settings need are reported apart', async () => {
    const db = await createTestDatabase('mig_events');
    try {
      const plain = await runScript(MIGRATE, dbEnv(db.config));
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(plain.stdout, new RegExp(`is at schema version ${BASE}; these settings need version ${BASE}\\.$`, 'm'));
      assert.deepEqual(await tables(db), ['schema_migrations', 'users']);

      const dry = await runScript(MIGRATE, { ...dbEnv(db.config), EVENTS: 'on' }, 20_000, { args: ['--dry-run'] });
      assert.equal(dry.code, 0, dry.stderr);
      for (const name of ['create_user_events', 'create_event_sequence', 'create_event_leases', 'create_webhook_endpoints', 'create_webhook_deliveries', 'create_event_batches']) {
        assert.match(dry.stdout, new RegExp(`-- migration \\d ${name}\\nCREATE TABLE IF NOT EXISTS`));
      }
      assert.deepEqual(await tables(db), ['schema_migrations', 'users'], 'a dry run changes nothing');

      const withEvents = await runScript(MIGRATE, { ...dbEnv(db.config), EVENTS: 'on', LOG_FORMAT: 'pretty' });
      assert.equal(withEvents.code, 0, withEvents.stderr);
      assert.match(withEvents.stdout, new RegExp(`applied ${migrationsFor({ events: true }).length - migrationsFor({ events: false }).length} migrations; it is at schema version ${WITH_EVENTS}; these settings need version ${WITH_EVENTS}\\.$`, 'm'));
      assert.deepEqual(await tables(db), ['schema_migrations', 'users', ...EVENT_TABLES].sort());
      assert.deepEqual((await migrationRecords(db)).map((record) => record.version), [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13]);

      const again = await runScript(MIGRATE, { ...dbEnv(db.config), EVENTS: 'on' });
      assert.match(again.stdout, new RegExp(`^No migration pending: \\S+ on \\S+ is at schema version ${WITH_EVENTS}; these settings need version ${WITH_EVENTS}\\.$`, 'm'));
      const off = await runScript(MIGRATE, { ...dbEnv(db.config), LOG_FORMAT: 'json' });
      // Events turned off again: the tables stay, nothing is undone. The database is where it was; the settings need less.
      assert.match(off.stdout, new RegExp(`^No migration pending: \\S+ on \\S+ is at schema version ${WITH_EVENTS}; these settings need version ${BASE}\\.$`, 'm'));
      assert.deepEqual(logged(off.stdout.split('\n'), 'schema up to date').map(({ version, needed }) => ({ version, needed })), [{ version: WITH_EVENTS, needed: BASE }], 'the log says both');
      const offDry = await runScript(MIGRATE, dbEnv(db.config), 20_000, { args: ['--dry-run'] });
      assert.match(offDry.stdout, new RegExp(`^-- Dry run: nothing to do; \\S+ on \\S+ is at schema version ${WITH_EVENTS}; these settings need version ${BASE}\\.$`, 'm'));
    } finally {
      await db.drop();
    }
  });
});
