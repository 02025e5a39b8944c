import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { idByEmail, usersFromDatabase, type ApiUser } from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('storage');
});
after(() => service.close());

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/;

async function createAndRead(name: string, email: string): Promise<{ id: number; user: ApiUser }> {
  const created = await request(service.baseUrl, 'POST', '/api/users', { json: { name, email } });
  assert.equal(created.status, 201, created.text);
  const id = await idByEmail(service.db, email);
  const read = await request(service.baseUrl, 'GET', `/api/users/${id}`);
  assert.equal(read.status, 200);
  return { id, user: read.json as ApiUser };
}

describe('created_at is ISO 8601 UTC and matches the stored instant', () => {
  test('seed users: created_at is ISO 8601 UTC and equals UNIX_TIMESTAMP(created_at) in the database', async () => {
    const res = await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
    const users = res.json as ApiUser[];
    const expected = await usersFromDatabase(service.db);
    assert.equal(users.length, expected.length);
    for (const [index, user] of users.entries()) {
      assert.match(user.created_at!, ISO_UTC);
      assert.equal(user.created_at, expected[index]!.created_at, `user ${user.id}`);
    }
  });

  test('a created user: created_at read back equals the database instant, to the second', async () => {
    const { id, user } = await createAndRead('Timely', 'timely@example.com');
    const [row] = await service.db.query<Array<{ ts: string | number }>>('SELECT UNIX_TIMESTAMP(created_at) AS ts FROM users WHERE id = ?', [id]);
    assert.match(user.created_at!, ISO_UTC);
    assert.equal(Date.parse(user.created_at!) / 1000, Number(row!.ts));
  });

  test('a timestamp set in a non-UTC session reads back as the same instant', async () => {
    await service.db.query("SET time_zone = '+09:30'");
    try {
      await service.db.query("UPDATE users SET created_at = '2026-11-22 10:55:36' WHERE id = 9");
    } finally {
      await service.db.query("SET time_zone = '+00:00'");
    }
    const res = await request(service.baseUrl, 'GET', '/api/users/9');
    assert.equal((res.json as ApiUser).created_at, '2026-11-22T01:25:36.000Z');
  });
});

describe('utf8mb4 text round-trips unchanged', () => {
  const texts = [
    { rule: 'emoji', name: 'Party 🎉😀👍🏽' },
    { rule: 'emoji ZWJ sequence', name: '👨‍👩‍👧‍👦 family' },
    { rule: 'CJK', name: '山田太郎 김철수 やまだ' },
    { rule: 'supplementary-plane CJK', name: '𠮷野家 𩸽' },
    { rule: 'combining marks', name: 'Ame\u0301lie Zoe\u0308 n\u0303' },
    { rule: 'precomposed accents', name: 'Amélie Zoë ñ Ærøskøbing' },
    { rule: 'right-to-left scripts', name: 'مرحبا שלום' },
    { rule: 'mathematical symbols', name: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ∀x∈ℝ' },
  ];
  for (const [index, { rule, name }] of texts.entries()) {
    test(`${rule}: POST then GET returns the exact name and the database holds it`, async () => {
      const email = `utf8-${index}-✉@example.com`;
      const { id, user } = await createAndRead(name, email);
      assert.equal(user.name, name);
      assert.equal(user.email, email);
      const [row] = await service.db.query<Array<{ name: string; hex: string }>>('SELECT name, HEX(name) AS hex FROM users WHERE id = ?', [id]);
      assert.equal(row!.hex, Buffer.from(name, 'utf8').toString('hex').toUpperCase(), 'stored as UTF-8 bytes');
    });
  }

  test('PUT with emoji and CJK replaces both fields exactly', async () => {
    const res = await request(service.baseUrl, 'PUT', '/api/users/4', { json: { name: '名前 🐉', email: 'ドラゴン@example.jp' } });
    assert.equal(res.status, 200);
    const read = await request(service.baseUrl, 'GET', '/api/users/4');
    assert.equal((read.json as ApiUser).name, '名前 🐉');
    assert.equal((read.json as ApiUser).email, 'ドラゴン@example.jp');
  });
});

describe('SQL-looking strings are stored literally', () => {
  const strings = [
    "'; DROP TABLE users; --",
    "Robert'); DROP TABLE users; --",
    '" OR "1"="1',
    "' OR 1=1 --",
    "admin'/*",
    '\\\'; SELECT SLEEP(5); --',
    '%_% LIKE wildcards',
    '1; DELETE FROM users WHERE 1=1',
    '`users`',
    '?, ?',
  ];
  for (const [index, text] of strings.entries()) {
    test(`${JSON.stringify(text)} as name and email is stored and read back verbatim`, async () => {
      const email = `${text} #${index}`;
      const count = (await usersFromDatabase(service.db)).length;
      const { id, user } = await createAndRead(text, email);
      assert.equal(user.name, text);
      assert.equal(user.email, email);
      const updated = await request(service.baseUrl, 'PUT', `/api/users/${id}`, { json: { name: `${text}!`, email } });
      assert.equal(updated.status, 200);
      const [row] = await usersFromDatabase(service.db, 'WHERE id = ?', [id]);
      assert.equal(row!.name, `${text}!`);
      assert.equal((await usersFromDatabase(service.db)).length, count + 1, 'exactly one row added, none removed');
    });
  }
});

describe('concurrency', () => {
  test('200 concurrent creates -> 200 responses of 201 and exactly 200 new rows', async () => {
    const before = await service.db.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM users');
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        request(service.baseUrl, 'POST', '/api/users', { json: { name: `Concurrent ${i}`, email: `concurrent-${i}@example.com` } }),
      ),
    );
    assert.deepEqual(new Set(responses.map((res) => res.status)), new Set([201]));
    const after = await service.db.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM users');
    assert.equal(Number(after[0]!.n) - Number(before[0]!.n), 200);
    const names = await service.db.query<Array<{ name: string }>>("SELECT name FROM users WHERE name LIKE 'Concurrent %'");
    assert.equal(new Set(names.map((row) => row.name)).size, 200, 'each request stored its own row');
  });
});

describe('the list returns every user, however many', () => {
  test('a table far larger than one write chunk is listed completely, in id order, as valid JSON', async () => {
    const values = Array.from({ length: 1500 }, (_, i) => [`Bulk ${i} ${'ü'.repeat(80)}`, `bulk-${i}@example.com`]);
    await service.db.query('INSERT INTO users (name, email) VALUES ?', [values]);
    const res = await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(res.json, await usersFromDatabase(service.db));
  });
});
