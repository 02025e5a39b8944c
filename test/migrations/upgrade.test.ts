import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { startService } from '../helpers/service.js';
import { allUsers, createOldSchema, logged, migrationRecords, MIGRATION_INDEXES, userIndexes } from './support/schema-state.js';

const expectedRecords = [
  { version: 1, name: 'add_users_email' },
  { version: 2, name: 'add_users_name' },
  { version: 3, name: 'add_users_created_at' },
];

describe('versioned migrations at start', () => {
  test('a users table of the old schema.sql is upgraded in place: every row kept, the three indexes added, each migration recorded once', async () => {
    const db = await createTestDatabase('mig_upgrade');
    try {
      await createOldSchema(db, 500);
      const before = await allUsers(db);
      assert.deepEqual(await userIndexes(db), ['PRIMARY'], 'the old table has no other index');

      const service = await startService('mig_upgrade', { db });
      await service.close();

      assert.deepEqual(await allUsers(db), before);
      assert.equal(before.length, 510);
      assert.deepEqual(await userIndexes(db), ['PRIMARY', ...MIGRATION_INDEXES]);
      const records = await migrationRecords(db);
      assert.deepEqual(records.map(({ version, name }) => ({ version, name })), expectedRecords);
      for (const record of records) assert.ok(Number(record.duration_ms) >= 0, 'each records its duration');
      const applied = logged(service.logs, 'migration applied');
      assert.deepEqual(applied.map(({ version, name }) => ({ version, name })), expectedRecords);
      for (const line of applied) assert.equal(typeof line.durationMs, 'number', 'each line gives its duration');
    } finally {
      await db.drop();
    }
  });

  test('a second start applies nothing and says the schema is up to date', async () => {
    const db = await createTestDatabase('mig_rerun');
    try {
      await createOldSchema(db);
      await (await startService('mig_rerun', { db })).close();
      const recordsBefore = await db.query('SELECT version, applied_at, duration_ms FROM schema_migrations ORDER BY version');

      const again = await startService('mig_rerun', { db });
      await again.close();
      assert.deepEqual(logged(again.logs, 'migration applied'), []);
      assert.deepEqual(logged(again.logs, 'schema up to date').map((line) => line.version), [3]);
      assert.deepEqual(await db.query('SELECT version, applied_at, duration_ms FROM schema_migrations ORDER BY version'), recordsBefore);
    } finally {
      await db.drop();
    }
  });

  test('a table the service creates gets its indexes through the same migrations', async () => {
    const service = await startService('mig_fresh');
    try {
      assert.ok(service.logs.some((line) => line.includes('users table created and seeded')));
      assert.deepEqual(await userIndexes(service.db), ['PRIMARY', ...MIGRATION_INDEXES]);
      assert.deepEqual((await migrationRecords(service.db)).map((record) => record.version), [1, 2, 3]);
    } finally {
      await service.close();
    }
  });

  test('a version recorded but whose index is missing is not run again: the record is what counts', async () => {
    const db = await createTestDatabase('mig_recorded');
    try {
      await (await startService('mig_recorded', { db })).close();
      await db.query('ALTER TABLE users DROP INDEX users_name');
      const again = await startService('mig_recorded', { db });
      await again.close();
      assert.deepEqual(logged(again.logs, 'migration applied'), []);
      assert.ok(!(await userIndexes(db)).includes('users_name'));
    } finally {
      await db.drop();
    }
  });

  test('/readyz is 200 with a usable table, and 503 once a column the service reads is dropped', async () => {
    const service = await startService('mig_readyz');
    try {
      assert.equal((await request(service.baseUrl, 'GET', '/readyz')).status, 200);
      await service.db.query('ALTER TABLE users DROP COLUMN created_at');
      const res = await request(service.baseUrl, 'GET', '/readyz');
      assert.equal(res.status, 503);
      assert.deepEqual(res.json, { error: 'Database unavailable' });
    } finally {
      await service.close();
    }
  });
});
