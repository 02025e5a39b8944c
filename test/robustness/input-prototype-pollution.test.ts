import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { jsonRequest, rawRequest } from '../helpers/raw-request.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

// The service runs in this process, so a polluted prototype would show up right here.
const prototypes = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype } as const;
const namesBefore = Object.fromEntries(
  Object.entries(prototypes).map(([name, proto]) => [name, Reflect.ownKeys(proto).map(String).sort()]),
);

let service: RunningService;
let port: number;
before(async () => {
  service = await startService('input_proto');
  port = Number(new URL(service.baseUrl).port);
});
after(() => service.close());

const bodies = [
  '{"__proto__":{"polluted":"yes","name":"Polluted","email":"p@example.com"}}',
  '{"__proto__":{"polluted":"yes"},"name":"Proto","email":"proto@example.com"}',
  '{"\\u005f\\u005fproto__":{"polluted":"yes"},"name":"Escaped","email":"esc@example.com"}',
  '{"constructor":{"prototype":{"polluted":"yes"}},"name":"Ctor","email":"ctor@example.com"}',
  '{"name":"Deep","email":"deep@example.com","x":[{"__proto__":{"polluted":"yes"}}]}',
  '{"prototype":{"polluted":"yes"},"name":"Proto2","email":"proto2@example.com"}',
];
const queries = [
  '?__proto__[polluted]=yes',
  '?__proto__.polluted=yes',
  '?constructor[prototype][polluted]=yes',
  `?pwd=${TEST_PASSWORD}&__proto__[polluted]=yes`,
];

describe('no prototype pollution', () => {
  before(async () => {
    for (const body of bodies) {
      await rawExchange(port, jsonRequest('POST', '/api/users', body));
      await rawExchange(port, jsonRequest('PUT', '/api/users/2', body));
    }
    for (const query of queries) await rawExchange(port, rawRequest('GET', `/api/users${query}`));
    await rawExchange(port, rawRequest('GET', '/api/users/1', { headers: [['__proto__', 'polluted'], ['constructor', 'x']] }));
  });

  test('every pollution payload in a body is refused with 400 and stores nothing', async () => {
    const countBefore = (await service.db.users()).length;
    for (const body of bodies) {
      const res = await rawExchange(port, jsonRequest('POST', '/api/users', body));
      assert.equal(res.status, 400, body);
      assert.deepEqual(res.json, { error: 'Request body uses a forbidden key (__proto__, constructor or prototype)' });
    }
    assert.equal((await service.db.users()).length, countBefore);
    assert.deepEqual((await service.db.users())[1], { id: 2, name: 'Jane Smith', email: 'jane@example.com' });
  });

  test('({}).polluted stays undefined after every payload', () => {
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf({}), Object.prototype);
  });

  test('Object, Array and Function prototypes keep exactly their own keys', () => {
    for (const [name, proto] of Object.entries(prototypes)) {
      assert.deepEqual(Reflect.ownKeys(proto).map(String).sort(), namesBefore[name], `${name}.prototype`);
    }
  });

  test('a body without name still gets "Name and email required" (nothing inherited a name)', async () => {
    for (const json of [{}, { email: 'only@example.com' }]) {
      const res = await request(service.baseUrl, 'POST', '/api/users', { json });
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { error: 'Name and email required' });
    }
  });

  test('the list still needs the password, and answers with it', async () => {
    assert.equal((await request(service.baseUrl, 'GET', '/api/users')).status, 401);
    assert.equal((await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`)).status, 200);
  });
});
