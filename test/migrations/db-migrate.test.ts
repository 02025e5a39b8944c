import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { createTestDatabase, testServer } from '../helpers/database.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { allUsers, createOldSchema, migrationRecords, MIGRATION_INDEXES, userIndexes } from './support/schema-state.js';

const MIGRATE = 'src/commands/db-migrate.ts';

describe('npm run db:migrate (src/commands/db-migrate.ts)', () => {
  test('applies each pending migration, printing each with its duration and then what it did; a second run finds nothing pending', async () => {
    const db = await createTestDatabase('mig_cli');
    try {
      await createOldSchema(db, 20);
      const before = await allUsers(db);
      const first = await runScript(MIGRATE, { ...dbEnv(db.config), LOG_FORMAT: 'pretty' });
      assert.equal(first.code, 0, first.stderr);
      for (const [version, name] of [[1, 'add_users_email'], [2, 'add_users_name'], [3, 'add_users_created_at']] as const) {
        assert.match(first.stdout, new RegExp(`INFO  migration applied version=${version} name=${name} durationMs=\\d+\\n`));
      }
      for (const index of MIGRATION_INDEXES) assert.match(first.stdout, new RegExp(`^building ${index} online$`, 'm'), 'each build says it began (and how far it is, each second, while it runs)');
      assert.match(first.stdout, new RegExp(`^${db.config.database} on 127\\.0\\.0\\.1:\\d+: applied 3 migrations; it is at schema version 3; these settings need version 3\\.$`, 'm'));
      assert.deepEqual(await userIndexes(db), ['PRIMARY', ...MIGRATION_INDEXES]);
      assert.deepEqual(await allUsers(db), before);

      const second = await runScript(MIGRATE, { ...dbEnv(db.config), LOG_FORMAT: 'pretty' });
      assert.equal(second.code, 0, second.stderr);
      assert.doesNotMatch(second.stdout, /migration applied/);
      assert.match(second.stdout, /^No migration pending: \S+ on \S+ is at schema version 3; these settings need version 3\.$/m);
    } finally {
      await db.drop();
    }
  });

  test('creates the table when it is missing, like a start', async () => {
    const db = await createTestDatabase('mig_cli_fresh');
    try {
      const result = await runScript(MIGRATE, dbEnv(db.config));
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /created and seeded the users table, applied 3 migrations; it is at schema version 3; these settings need version 3\./);
      assert.equal((await db.users()).length, 10);
      assert.deepEqual((await migrationRecords(db)).map((record) => record.version), [1, 2, 3]);
    } finally {
      await db.drop();
    }
  });

  test('--dry-run prints the statements that would run, as SQL, and changes nothing', async () => {
    const db = await createTestDatabase('mig_cli_dry');
    try {
      await createOldSchema(db);
      const result = await runScript(MIGRATE, { ...dbEnv(db.config), UNIQUE_EMAIL: 'on' }, 20_000, { args: ['--dry-run'] });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^-- Dry run, nothing changed; \S+ on \S+ has no schema version yet; these settings need version 3\. What would run:$/m);
      assert.match(result.stdout, new RegExp(`^-- every statement below applies to this database\nUSE \`${db.config.database}\`;$`, 'm'));
      assert.match(result.stdout, /^CREATE TABLE IF NOT EXISTS schema_migrations .*;$/m);
      for (const index of ['users_email (email)', 'users_name (name)', 'users_created_at (created_at)']) {
        assert.match(result.stdout, new RegExp(`^ALTER TABLE users ADD INDEX IF NOT EXISTS ${index.replace(/[()]/g, '\\$&')}, ALGORITHM=INPLACE, LOCK=NONE;$`, 'm'));
      }
      assert.match(result.stdout, /^INSERT IGNORE INTO schema_migrations \(version, name, duration_ms\) VALUES \(1, 'add_users_email', NULL\);$/m);
      assert.match(result.stdout, /^ALTER TABLE users ADD UNIQUE INDEX IF NOT EXISTS users_email_unique \(email\), ALGORITHM=INPLACE, LOCK=NONE;$/m);
      assert.doesNotMatch(result.stdout, /CREATE TABLE IF NOT EXISTS `users`/, 'the users table exists');

      assert.deepEqual(await userIndexes(db), ['PRIMARY'], 'no index was added');
      const tables = await db.query<unknown[]>("SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'schema_migrations'");
      assert.deepEqual(tables, [], 'schema_migrations was not created');
    } finally {
      await db.drop();
    }
  });

  test('--dry-run on a database that does not exist prints its creation and creates nothing', async () => {
    const db = await createTestDatabase('mig_cli_dry_none');
    const admin = await mysql.createConnection(testServer);
    try {
      const result = await runScript(MIGRATE, dbEnv(db.config), 20_000, { args: ['--dry-run'] });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^CREATE DATABASE IF NOT EXISTS \`${db.config.database}\``, 'm'));
      assert.match(result.stdout, /^CREATE TABLE IF NOT EXISTS `users` \(/m);
      const [schemata] = await admin.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = ?', [db.config.database]);
      assert.deepEqual(schemata, []);
    } finally {
      await admin.end();
      await db.drop();
    }
  });

  test('over a table the service cannot use: exit 1 and the one line a start would print', async () => {
    const db = await createTestDatabase('mig_cli_unusable');
    try {
      await createOldSchema(db);
      await db.query('ALTER TABLE users DROP COLUMN name');
      for (const args of [[], ['--dry-run']]) {
        const result = await runScript(MIGRATE, dbEnv(db.config), 20_000, { args });
        assert.equal(result.code, 1);
        assert.match(result.stderr, /^db:migrate failed: The table \S+\.users cannot be used: it lacks the column name \(a character type of at least 100 characters\)\n$/);
      }
      assert.deepEqual(await userIndexes(db), ['PRIMARY']);
    } finally {
      await db.drop();
    }
  });
});
