import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Database } from '../../src/db/database.js';
import { createConnectionSource } from '../../src/db/connect.js';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { endPool } from '../../src/db/pool.js';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { ensureUsersTable } from '../../src/startup/schema.js';
import { userEtagSql } from '../../src/db/statements.js';
import { etagHash } from '../../src/users/rules/etag.js';
import type { UserRow } from '../../src/users/rules/user.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Every user's ETag hash as the database computes it in the service's conditional writes. */
const everyUsersEtag = `SELECT id, name, email, created_at, ${userEtagSql} AS etag FROM users ORDER BY id`;

let db: TestDatabase;
let pool: ConnectionSource;
before(async () => {
  db = await createTestDatabase('etag_sql');
  await ensureUsersTable(db.config);
  pool = createConnectionSource(db.config, defaultTuning);
});
after(async () => {
  await endPool(pool);
  await db.drop();
});

test('the database computes every user\'s ETag hash exactly as the service does (conditional writes rely on it)', async () => {
  const tricky: Array<[name: string, email: string]> = [
    ['Ada', 'ADA@example.com'],
    ['ada', 'ada@example.com'],
    ['trailing space ', 'x@example.com'],
    ['山田太郎 🎉', 'yamada@example.jp'],
    ['comma, in name', ',@example.com'],
    ['quote " and \\ backslash', 'q@example.com'],
    ['tab\tand\nnewline (stored directly)', 'n@example.com'],
    ['x'.repeat(100), '😀'.repeat(100)],
  ];
  for (const [name, email] of tricky) await db.query('INSERT INTO users (name, email) VALUES (?, ?)', [name, email]);
  await db.query("INSERT INTO users (name, email, created_at) VALUES ('No time', 'null@example.com', NULL)");
  // Tables made by other clients may allow NULL names and emails, and fractions of a second.
  await db.query('ALTER TABLE users MODIFY name VARCHAR(100) NULL, MODIFY email VARCHAR(100) NULL, MODIFY created_at TIMESTAMP(6) NULL DEFAULT CURRENT_TIMESTAMP(6)');
  await db.query("INSERT INTO users (name, email, created_at) VALUES (NULL, 'nameless@example.com', '2026-01-02 03:04:05.678901'), ('Mailless', NULL, NULL), ('', '', NULL)");
  const rows = await new Database(pool, 4000, 1000).read<Array<UserRow & { etag: string }>>(everyUsersEtag, []);
  assert.equal(rows.length, 10 + tricky.length + 4);
  assert.ok(rows.some((row) => row.created_at === null), 'a NULL created_at is covered');
  for (const { etag, ...row } of rows) assert.equal(etag, etagHash(row), JSON.stringify(row));
  assert.equal(new Set(rows.map((row) => row.etag)).size, rows.length, 'every user has its own tag');
});
