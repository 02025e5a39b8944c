import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { jsonRequest, rawRequest } from '../helpers/raw-request.js';
import { startService, type RunningService } from '../helpers/service.js';

/** Classic injection strings, each short enough to be a valid name or email. */
const injections: ReadonlyArray<string> = [
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR ""="',
  "1); DELETE FROM users; --",
  "admin'--",
  "' UNION SELECT id, name, email, created_at FROM users --",
  "' OR SLEEP(5) --",
  "%' OR name LIKE '%",
  "\\'; DROP TABLE users; --",
  'trailing backslash \\',
  "ʼ OR 1=1 -- (modifier letter apostrophe)",
  "＇ OR 1=1 -- (full-width apostrophe)",
  '/*!50000 SELECT */ 1',
  "0x27 OR 0x31=0x31; CHAR(39)",
  '`users`; TRUNCATE users',
];

interface Row {
  id: number;
  name: string;
  email: string;
}

let service: RunningService;
let port: number;
let seed: Row[];
before(async () => {
  service = await startService('security_sql');
  port = Number(new URL(service.baseUrl).port);
  seed = await service.db.users();
});
after(() => service.close());

/** The rows whose name and email equal these, byte for byte. */
const exactly = (name: string, email: string) =>
  service.db.query<Row[]>('SELECT id, name, email FROM users WHERE BINARY name = ? AND BINARY email = ?', [name, email]);

describe('SQL injection strings are stored or rejected literally, never executed', () => {
  injections.forEach((text, i) => {
    test(`create with ${JSON.stringify(text)} in name and email -> stored exactly, read back exactly`, async () => {
      const email = `${text}@x${i}`;
      const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: text, email } });
      assert.equal(res.status, 201);
      const rows = await exactly(text, email);
      assert.equal(rows.length, 1, 'exactly one row holds the literal text');
      const read = await request(service.baseUrl, 'GET', `/api/users/${rows[0]!.id}`);
      assert.equal(read.status, 200);
      assert.deepEqual({ name: (read.json as Row).name, email: (read.json as Row).email }, { name: text, email });
    });
  });

  test('update with every injection string -> stored exactly, and no other row changes', async () => {
    for (const text of injections) {
      const res = await request(service.baseUrl, 'PUT', '/api/users/5', { json: { name: text, email: text } });
      assert.equal(res.status, 200);
      const [row] = await service.db.query<Row[]>('SELECT id, name, email FROM users WHERE id = 5');
      assert.deepEqual(row, { id: 5, name: text, email: text });
    }
    const others = (await service.db.users()).filter((row) => row.id <= 10 && row.id !== 5);
    assert.deepEqual(others, seed.filter((row) => row.id !== 5));
  });

  const idInjections = ['1%20OR%201=1', "1'%20OR%20'1'='1", '1;DELETE%20FROM%20users', '0%20OR%20id%3E0', '1--', '(SELECT%201)'];
  for (const segment of idInjections) {
    test(`id ${segment} with GET, PUT and DELETE -> 404, nothing read, changed or deleted`, async () => {
      const before = await service.db.users();
      for (const req of [
        rawRequest('GET', `/api/users/${segment}`),
        jsonRequest('PUT', `/api/users/${segment}`, '{"name":"Injected","email":"injected@example.com"}'),
        rawRequest('DELETE', `/api/users/${segment}`),
      ]) {
        const res = await rawExchange(port, req);
        assert.equal(res.status, 404);
        assert.deepEqual(res.json, { error: 'Not found' });
      }
      assert.deepEqual(await service.db.users(), before);
    });
  }

  for (const pwd of ["'%20OR%20'1'='1", '%22%20OR%20%22%22%3D%22', '*', '%25', "'%20OR%201=1%20--%20"]) {
    test(`pwd=${pwd} -> 401, no rows`, async () => {
      const res = await rawExchange(port, rawRequest('GET', `/api/users?pwd=${pwd}`));
      assert.equal(res.status, 401);
      assert.deepEqual(res.json, { error: 'Invalid password' });
    });
  }

  test('afterwards the users table and all seed rows but the updated one are intact', async () => {
    const tables = await service.db.query<Array<{ name: string }>>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()',
    );
    assert.deepEqual(tables.map((t) => t.name).sort(), ['schema_migrations', 'users']);
    const rows = await service.db.users();
    assert.equal(rows.length, seed.length + injections.length);
    assert.deepEqual(rows.filter((row) => row.id <= 10 && row.id !== 5), seed.filter((row) => row.id !== 5));
  });
});
