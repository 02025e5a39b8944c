import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

let service: RunningService;
before(async () => {
  service = await startService('listjson');
});
after(() => service.close());

// Stored directly, so values the API itself would refuse (control characters) are covered too.
const awkward = [
  'quote " and backslash \\',
  'tab\tnewline\nreturn\rbell\u0007nul\u0000',
  'emoji 😀 CJK 漢字 combining e\u0301',
  'separators \u2028 \u2029 slash / </script>',
  "'; DROP TABLE users; --",
  // Escaped by the database with capital hex digits (\u001F), by JSON.stringify with small ones.
  'vertical tab\u000b escape\u001b unit separator\u001f',
  '","email":"fake',
  'literal \\u001F and \\\u0001',
];

test('the list and GET by id give the same user objects, awkward names and emails included', async () => {
  for (const text of awkward) {
    await service.db.query('INSERT INTO users (name, email) VALUES (?, ?)', [text, `${text}@x`]);
  }
  const list = await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
  assert.equal(list.status, 200);
  const users = list.json as Array<{ id: number; name: string }>;
  assert.deepEqual(users.slice(10).map((user) => user.name), awkward);
  for (const user of users) {
    const one = await request(service.baseUrl, 'GET', `/api/users/${user.id}`);
    assert.deepEqual(one.json, user, `user ${user.id}`);
  }
});

test('the list body is byte for byte the GET-by-id bodies joined into an array', async () => {
  const list = await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
  const ids = (list.json as Array<{ id: number }>).map((user) => user.id);
  const bodies = await Promise.all(ids.map(async (id) => (await request(service.baseUrl, 'GET', `/api/users/${id}`)).text));
  assert.equal(list.text, `[${bodies.join(',')}]`);
});

test('a NULL created_at (possible on MySQL 8 when written by other clients) is null in both, not an error', async () => {
  const column = await service.db.query<Array<{ IS_NULLABLE: string }>>(
    "SELECT IS_NULLABLE FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'users' AND column_name = 'created_at'",
  );
  if (column[0]?.IS_NULLABLE !== 'YES') await service.db.query('ALTER TABLE users MODIFY created_at TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP');
  const inserted = await service.db.query<{ insertId: number }>(
    'INSERT INTO users (name, email, created_at) VALUES (?, ?, NULL)',
    ['No Time', 'none@x'],
  );
  const one = await request(service.baseUrl, 'GET', `/api/users/${inserted.insertId}`);
  assert.equal(one.status, 200);
  assert.equal((one.json as { created_at: unknown }).created_at, null);
  const list = await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
  assert.deepEqual((list.json as Array<{ id: number }>).find((user) => user.id === inserted.insertId), one.json);
});

test('a created_at with fractions of a second (TIMESTAMP(6), made by other clients) is listed to the second, as GET by id gives it', async () => {
  await service.db.query('ALTER TABLE users MODIFY created_at TIMESTAMP(6) NULL DEFAULT CURRENT_TIMESTAMP(6)');
  const inserted = await service.db.query<{ insertId: number }>(
    "INSERT INTO users (name, email, created_at) VALUES (?, ?, '2026-01-02 03:04:05.678901')",
    ['Fraction', 'fraction@x'],
  );
  const one = await request(service.baseUrl, 'GET', `/api/users/${inserted.insertId}`);
  assert.equal((one.json as { created_at: unknown }).created_at, '2026-01-02T03:04:05.000Z');
  const list = await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
  assert.deepEqual((list.json as Array<{ id: number }>).find((user) => user.id === inserted.insertId), one.json);
});

test('a NULL name or email (possible in a table other clients made) is listed as null, as GET by id gives it', async () => {
  await service.db.query('ALTER TABLE users MODIFY name VARCHAR(100) NULL, MODIFY email VARCHAR(100) NULL');
  const inserted = await service.db.query<{ insertId: number }>('INSERT INTO users (name, email) VALUES (NULL, ?)', ['nameless@x']);
  const one = await request(service.baseUrl, 'GET', `/api/users/${inserted.insertId}`);
  assert.equal((one.json as { name: unknown }).name, null);
  const list = await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
  assert.equal(list.status, 200);
  assert.deepEqual((list.json as Array<{ id: number }>).find((user) => user.id === inserted.insertId), one.json);
});
