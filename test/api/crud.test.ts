import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

let service: RunningService;
before(async () => {
  service = await startService('crud');
});
after(() => service.close());

const call = (method: string, path: string, json?: unknown) =>
  request(service.baseUrl, method, path, json === undefined ? {} : { json });

describe('the contract of section 7.1', () => {
  test('GET /api/users with the password -> 200, the ten seed users in id order with all fields', async () => {
    const res = await call('GET', `/api/users?pwd=${TEST_PASSWORD}`);
    assert.equal(res.status, 200);
    const users = res.json as Array<Record<string, unknown>>;
    assert.deepEqual(users.slice(0, 10).map((u) => u.id), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const user of users) {
      assert.deepEqual(Object.keys(user), ['id', 'name', 'email', 'created_at']);
      assert.match(String(user.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    }
  });

  test('POST then GET: the created user is readable with the given fields', async () => {
    const created = await call('POST', '/api/users', { name: 'Ada Lovelace', email: 'ada@example.com' });
    assert.equal(created.status, 201);
    assert.deepEqual(created.json, { message: 'User created successfully' });
    const [row] = await service.db.query<Array<{ id: number }>>('SELECT id FROM users WHERE email = ?', [
      'ada@example.com',
    ]);
    const read = await call('GET', `/api/users/${row!.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual({ ...(read.json as object), created_at: undefined }, {
      id: row!.id,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      created_at: undefined,
    });
  });
});
