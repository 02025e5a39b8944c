import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { createTestDatabase, testDbConfig, testServer } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { startService } from '../helpers/service.js';
import { seedUsers, tableSnapshot } from './support/contract.js';

const seeded = seedUsers.map((user, index) => ({ id: index + 1, ...user }));

describe('the service creates its schema on start', () => {
  test('a fresh database gets the users table and the ten seed users with ids 1..10 in order', async () => {
    const service = await startService('schema_fresh');
    try {
      assert.deepEqual(await service.db.users(), seeded);
      assert.ok(service.logs.some((line) => line.includes('users table created and seeded')));
    } finally {
      await service.close();
    }
  });

  test('the users table has the columns of the spec, in utf8mb4', async () => {
    const service = await startService('schema_columns');
    try {
      const columns = await service.db.query<Array<Record<string, string>>>(
        `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_KEY AS keyed, EXTRA AS extra,
                COLUMN_DEFAULT AS dflt, CHARACTER_SET_NAME AS charset
           FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'users' ORDER BY ORDINAL_POSITION`,
      );
      assert.deepEqual(columns.map((column) => column.name), ['id', 'name', 'email', 'created_at']);
      const [id, name, email, createdAt] = columns;
      assert.match(String(id!.type), /^int/);
      assert.equal(id!.keyed, 'PRI');
      assert.match(String(id!.extra), /auto_increment/);
      for (const column of [name!, email!]) {
        assert.equal(column.type, 'varchar(100)');
        assert.equal(column.nullable, 'NO');
        assert.equal(column.charset, 'utf8mb4');
      }
      assert.equal(createdAt!.type, 'timestamp');
      assert.match(String(createdAt!.dflt), /current_timestamp/i);
    } finally {
      await service.close();
    }
  });

  test('a second start on the same database, while the first runs and after it stopped, leaves the data untouched', async () => {
    const db = await createTestDatabase('schema_restart');
    try {
      const first = await startService('schema_restart', { db });
      await request(first.baseUrl, 'DELETE', '/api/users/3');
      await request(first.baseUrl, 'PUT', '/api/users/1', { json: { name: 'Changed', email: 'changed@example.com' } });
      await request(first.baseUrl, 'POST', '/api/users', { json: { name: 'Added', email: 'added@example.com' } });
      const before = await tableSnapshot(db);
      assert.equal(before.length, 10, 'one deleted, one added');

      const second = await startService('schema_restart', { db });
      assert.deepEqual(await tableSnapshot(db), before, 'a second instance alongside the first');
      assert.ok(second.logs.some((line) => line.includes('users table found')));
      await second.close();
      await first.close();

      const third = await startService('schema_restart', { db });
      await third.close();
      assert.deepEqual(await tableSnapshot(db), before, 'a restart');
    } finally {
      await db.drop();
    }
  });

  test('an existing empty table is not re-seeded', async () => {
    const db = await createTestDatabase('schema_empty');
    try {
      const first = await startService('schema_empty', { db });
      await first.close();
      await db.query('DELETE FROM users');
      const second = await startService('schema_empty', { db });
      await second.close();
      assert.deepEqual(await db.users(), []);
    } finally {
      await db.drop();
    }
  });

  test('a table that exists before the first start is used as it is, not seeded', async () => {
    const db = await createTestDatabase('schema_preexisting');
    const admin = await mysql.createConnection({ ...testServer, charset: 'utf8mb4' });
    try {
      await admin.query(`CREATE DATABASE \`${db.config.database}\` CHARACTER SET utf8mb4`);
      await admin.query(
        `CREATE TABLE \`${db.config.database}\`.users (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100) NOT NULL,
           email VARCHAR(100) NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP) DEFAULT CHARSET=utf8mb4`,
      );
      await admin.query(`INSERT INTO \`${db.config.database}\`.users (id, name, email) VALUES (42, 'Only', 'only@example.com')`);
      const service = await startService('schema_preexisting', { db });
      const read = await request(service.baseUrl, 'GET', '/api/users/42');
      await service.close();
      assert.equal(read.status, 200);
      assert.deepEqual(await db.users(), [{ id: 42, name: 'Only', email: 'only@example.com' }]);
    } finally {
      await admin.end();
      await db.drop();
    }
  });

  test('two instances starting at once on a fresh database seed it exactly once', async () => {
    const db = await createTestDatabase('schema_race');
    try {
      const services = await Promise.all([startService('schema_race', { db }), startService('schema_race', { db })]);
      await Promise.all(services.map((service) => service.close()));
      assert.deepEqual(await db.users(), seeded);
      const tables = await db.query<Array<{ name: string }>>(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name',
      );
      assert.deepEqual(tables.map((table) => table.name), ['schema_migrations', 'users'], 'no staging table is left behind');
    } finally {
      await db.drop();
    }
  });
});

describe('npm run db:init (src/commands/db-init.ts)', () => {
  test('creates and seeds the configured database; a second run leaves the data as it is', async () => {
    const db = await createTestDatabase('dbinit');
    try {
      const first = await runScript('src/commands/db-init.ts', dbEnv(db.config));
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /Created/);
      assert.deepEqual(await db.users(), seeded);

      await db.query('DELETE FROM users WHERE id > 2');
      await db.query("UPDATE users SET name = 'Kept' WHERE id = 1");
      const before = await tableSnapshot(db);
      const second = await runScript('src/commands/db-init.ts', dbEnv(db.config));
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /already exists/);
      assert.deepEqual(await tableSnapshot(db), before);
    } finally {
      await db.drop();
    }
  });

  test('an invalid DB_NAME -> non-zero exit with a message naming DB_NAME', async () => {
    const result = await runScript('src/commands/db-init.ts', { ...dbEnv(testDbConfig('x')), DB_NAME: 'no-dashes; allowed' });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /DB_NAME/);
  });
});
