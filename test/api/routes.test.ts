import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import {
  assertErrorBody,
  idByEmail,
  JSON_CONTENT_TYPE,
  methodList,
  tableSnapshot,
  usersFromDatabase,
} from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('routes');
});
after(() => service.close());

const call = (method: string, path: string, json?: unknown) =>
  request(service.baseUrl, method, path, json === undefined ? {} : { json });

const valid = { name: 'Route Tester', email: 'route@example.com' };
const NOT_FOUND = { error: 'Not found' };
const USER_NOT_FOUND = { error: 'User not found' };
const REQUIRED = { error: 'Name and email required' };
const INVALID_PASSWORD = { error: 'Invalid password' };

/** Requests whose answer does not depend on what earlier tests stored; none of them may change the table. */
interface Row {
  rule: string;
  method: string;
  path: string;
  json?: unknown;
  status: number;
  body: unknown;
  allow?: string[];
}

const unchangingRows: Row[] = [
  // 401: the list is the only protected operation.
  { rule: 'list without pwd -> 401', method: 'GET', path: '/api/users', status: 401, body: INVALID_PASSWORD },
  { rule: 'list with a wrong pwd -> 401', method: 'GET', path: '/api/users?pwd=wrong', status: 401, body: INVALID_PASSWORD },
  { rule: 'list with an empty pwd -> 401', method: 'GET', path: '/api/users?pwd=', status: 401, body: INVALID_PASSWORD },
  { rule: 'list with a bare pwd key -> 401', method: 'GET', path: '/api/users?pwd', status: 401, body: INVALID_PASSWORD },
  { rule: 'list with pwd in other case -> 401', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD.toUpperCase()}`, status: 401, body: INVALID_PASSWORD },
  { rule: 'list with the password plus a suffix -> 401', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD}x`, status: 401, body: INVALID_PASSWORD },
  { rule: 'list with a prefix of the password -> 401', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD.slice(0, -1)}`, status: 401, body: INVALID_PASSWORD },
  { rule: 'list with the password under another key -> 401', method: 'GET', path: `/api/users?password=${TEST_PASSWORD}`, status: 401, body: INVALID_PASSWORD },
  // 404 User not found: integer ids no user has.
  { rule: 'read of an unknown id -> 404 User not found', method: 'GET', path: '/api/users/999999', status: 404, body: USER_NOT_FOUND },
  { rule: 'read of id 0 -> 404 User not found', method: 'GET', path: '/api/users/0', status: 404, body: USER_NOT_FOUND },
  { rule: 'read of the largest INT id -> 404 User not found', method: 'GET', path: '/api/users/2147483647', status: 404, body: USER_NOT_FOUND },
  { rule: 'read of an id just beyond INT -> 404 User not found', method: 'GET', path: '/api/users/2147483648', status: 404, body: USER_NOT_FOUND },
  { rule: 'read of an id far beyond INT -> 404 User not found', method: 'GET', path: '/api/users/99999999999', status: 404, body: USER_NOT_FOUND },
  { rule: 'read of a 40-digit id -> 404 User not found', method: 'GET', path: `/api/users/${'9'.repeat(40)}`, status: 404, body: USER_NOT_FOUND },
  { rule: 'update of an unknown id -> 404 User not found', method: 'PUT', path: '/api/users/999999', json: valid, status: 404, body: USER_NOT_FOUND },
  { rule: 'update of an out-of-range id -> 404 User not found', method: 'PUT', path: '/api/users/99999999999', json: valid, status: 404, body: USER_NOT_FOUND },
  { rule: 'delete of an unknown id -> 404 User not found', method: 'DELETE', path: '/api/users/999999', status: 404, body: USER_NOT_FOUND },
  { rule: 'delete of an out-of-range id -> 404 User not found', method: 'DELETE', path: '/api/users/99999999999', status: 404, body: USER_NOT_FOUND },
  // PUT checks the body before the user: 400 wins over 404.
  { rule: 'PUT unknown id with an empty object -> 400 before 404', method: 'PUT', path: '/api/users/999999', json: {}, status: 400, body: REQUIRED },
  { rule: 'PUT unknown id with an empty name -> 400 before 404', method: 'PUT', path: '/api/users/999999', json: { name: '', email: 'a@b.c' }, status: 400, body: REQUIRED },
  { rule: 'PUT unknown id without email -> 400 before 404', method: 'PUT', path: '/api/users/999999', json: { name: 'A' }, status: 400, body: REQUIRED },
  { rule: 'PUT out-of-range id with an empty object -> 400 before 404', method: 'PUT', path: '/api/users/99999999999', json: {}, status: 400, body: REQUIRED },
  { rule: 'PUT out-of-range id with blank email -> 400 before 404', method: 'PUT', path: '/api/users/99999999999', json: { name: 'A', email: ' ' }, status: 400, body: REQUIRED },
  // 400 on create: nothing stored.
  { rule: 'POST without name -> 400', method: 'POST', path: '/api/users', json: { email: 'a@b.c' }, status: 400, body: REQUIRED },
  { rule: 'POST without email -> 400', method: 'POST', path: '/api/users', json: { name: 'A' }, status: 400, body: REQUIRED },
  { rule: 'POST with an empty object -> 400', method: 'POST', path: '/api/users', json: {}, status: 400, body: REQUIRED },
  { rule: 'POST with an empty name -> 400', method: 'POST', path: '/api/users', json: { name: '', email: 'a@b.c' }, status: 400, body: REQUIRED },
  { rule: 'POST with an empty email -> 400', method: 'POST', path: '/api/users', json: { name: 'A', email: '' }, status: 400, body: REQUIRED },
  { rule: 'POST with a null name -> 400', method: 'POST', path: '/api/users', json: { name: null, email: 'a@b.c' }, status: 400, body: REQUIRED },
  { rule: 'PUT existing id with an empty object -> 400', method: 'PUT', path: '/api/users/1', json: {}, status: 400, body: REQUIRED },
  // 405 with Allow on known paths.
  { rule: 'PROPFIND on a user -> 405 with Allow', method: 'PROPFIND', path: '/api/users/1', status: 405, body: { error: 'Method not allowed' }, allow: ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'] },
  { rule: 'POST on a user -> 405 with Allow', method: 'POST', path: '/api/users/1', json: valid, status: 405, body: { error: 'Method not allowed' }, allow: ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'] },
  { rule: 'DELETE on the collection -> 405 with Allow', method: 'DELETE', path: '/api/users', status: 405, body: { error: 'Method not allowed' }, allow: ['GET', 'HEAD', 'OPTIONS', 'POST'] },
  { rule: 'PUT on the collection -> 405 with Allow', method: 'PUT', path: '/api/users', json: valid, status: 405, body: { error: 'Method not allowed' }, allow: ['GET', 'HEAD', 'OPTIONS', 'POST'] },
  { rule: 'PATCH on the collection -> 405 with Allow', method: 'PATCH', path: '/api/users', json: valid, status: 405, body: { error: 'Method not allowed' }, allow: ['GET', 'HEAD', 'OPTIONS', 'POST'] },
  { rule: 'POST on /healthz -> 405 with Allow', method: 'POST', path: '/healthz', json: valid, status: 405, body: { error: 'Method not allowed' }, allow: ['GET', 'HEAD', 'OPTIONS'] },
  { rule: 'POST on / (the index) -> 405 with Allow', method: 'POST', path: '/', json: valid, status: 405, body: { error: 'Method not allowed' }, allow: ['GET', 'HEAD', 'OPTIONS'] },
  // Any other path -> 404 Not found.
  ...['/api', '/api/', '/api/user', '/api/userss', '/API/users', '/api/users/1/extra', '/api/users/1/2', '/api/users//', '/api/users%2F1', '/nope', '/api/v1/users'].flatMap(
    (path): Row[] => [
      { rule: `GET ${path} -> 404 Not found`, method: 'GET', path, status: 404, body: NOT_FOUND },
      { rule: `POST ${path} -> 404 Not found`, method: 'POST', path, json: valid, status: 404, body: NOT_FOUND },
    ],
  ),
  { rule: 'PATCH on a non-integer id -> 404 Not found, not 405', method: 'PATCH', path: '/api/users/abc', json: valid, status: 404, body: NOT_FOUND },
];

/** `{id}` is an integer segment: anything else does not match the user routes. */
const nonIntegerIds = ['abc', '1.5', '-1', '1e3', '01', '00', '0x10', '%31', '+1', '1%20', '%201', '1a', '%D9%A1', '1,2', '1;2', '1/'];
const nonIntegerRows: Row[] = nonIntegerIds.flatMap((id): Row[] => [
  { rule: `GET /api/users/${id} -> 404 Not found`, method: 'GET', path: `/api/users/${id}`, status: 404, body: NOT_FOUND },
  { rule: `PUT /api/users/${id} -> 404 Not found`, method: 'PUT', path: `/api/users/${id}`, json: valid, status: 404, body: NOT_FOUND },
  { rule: `DELETE /api/users/${id} -> 404 Not found`, method: 'DELETE', path: `/api/users/${id}`, status: 404, body: NOT_FOUND },
]);

describe('routes table: requests that must not change anything', () => {
  for (const row of [...unchangingRows, ...nonIntegerRows]) {
    test(row.rule, async () => {
      const before = await tableSnapshot(service.db);
      const res = await call(row.method, row.path, row.json);
      assert.equal(res.status, row.status, res.text);
      assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
      assertErrorBody(res);
      assert.deepEqual(res.json, row.body);
      if (row.allow) assert.deepEqual(methodList(res.headers.get('allow')), row.allow);
      assert.deepEqual(await tableSnapshot(service.db), before, 'nothing stored, changed or removed');
    });
  }
});

describe('the five operations succeed with the exact bodies of the contract', () => {
  test('GET /api/users with the password -> 200, every stored user with all fields, ordered by id', async () => {
    const res = await call('GET', `/api/users?pwd=${TEST_PASSWORD}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
    const users = res.json as Array<Record<string, unknown>>;
    assert.deepEqual(users, await usersFromDatabase(service.db));
    for (const user of users) assert.deepEqual(Object.keys(user), ['id', 'name', 'email', 'created_at']);
    assert.deepEqual(users.map((user) => user.id), [...users.map((user) => user.id as number)].sort((a, b) => a - b));
  });

  test('GET /api/users with the password percent-encoded -> 200 (query values are URL-decoded)', async () => {
    const encoded = [...TEST_PASSWORD].map((char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    const res = await call('GET', `/api/users?pwd=${encoded}`);
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.json));
  });

  test('GET /api/users with other query parameters beside pwd -> 200', async () => {
    const res = await call('GET', `/api/users?x=1&pwd=${TEST_PASSWORD}&y=2`);
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.json));
  });

  test('GET /api/users/1 -> 200, the user object exactly as stored', async () => {
    const res = await call('GET', '/api/users/1');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
    const [expected] = await usersFromDatabase(service.db, 'WHERE id = 1');
    assert.deepEqual(res.json, expected);
    assert.deepEqual(Object.keys(res.json as object), ['id', 'name', 'email', 'created_at']);
  });

  test('HEAD /api/users/1 -> 200 with JSON headers and no body', async () => {
    const res = await call('HEAD', '/api/users/1');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
    assert.equal(res.text, '');
  });

  test('GET / -> 200, the index naming the docs and the description, with CORS; HEAD / -> the same headers, no body', async () => {
    const res = await call('GET', '/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(res.json, { name: 'User Service', docs: '/apidocs', openapi: '/openapi.json' });
    const head = await call('HEAD', '/');
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), JSON_CONTENT_TYPE);
    assert.equal(head.headers.get('content-length'), res.headers.get('content-length'));
    assert.equal(head.text, '');
  });

  test('POST /api/users -> 201 {"message":"User created successfully"} and nothing else; the user is stored', async () => {
    const before = (await usersFromDatabase(service.db)).length;
    const res = await call('POST', '/api/users', { name: 'Ada Lovelace', email: 'ada@example.com' });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
    assert.equal(res.text, '{"message":"User created successfully"}');
    const after = await usersFromDatabase(service.db);
    assert.equal(after.length, before + 1);
    const id = await idByEmail(service.db, 'ada@example.com');
    const read = await call('GET', `/api/users/${id}`);
    assert.deepEqual(read.json, after.find((user) => user.id === id));
    assert.equal((read.json as { name: string }).name, 'Ada Lovelace');
  });

  test('PUT /api/users/2 -> 200 {"message":"User updated successfully"}; both fields replaced, created_at kept', async () => {
    const [before] = await usersFromDatabase(service.db, 'WHERE id = 2');
    const res = await call('PUT', '/api/users/2', { name: 'Jane Updated', email: 'jane.updated@example.com' });
    assert.equal(res.status, 200);
    assert.equal(res.text, '{"message":"User updated successfully"}');
    const [after] = await usersFromDatabase(service.db, 'WHERE id = 2');
    assert.deepEqual(after, { ...before!, name: 'Jane Updated', email: 'jane.updated@example.com' });
    assert.deepEqual((await call('GET', '/api/users/2')).json, after);
  });

  test('PUT with the values the user already has -> 200, not 404 (the user exists)', async () => {
    const [user] = await usersFromDatabase(service.db, 'WHERE id = 3');
    const res = await call('PUT', '/api/users/3', { name: user!.name, email: user!.email });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { message: 'User updated successfully' });
  });

  test('DELETE /api/users/{id} -> 200 {"message":"User deleted successfully"}; the user is gone, a second DELETE -> 404', async () => {
    await call('POST', '/api/users', { name: 'Doomed', email: 'doomed@example.com' });
    const id = await idByEmail(service.db, 'doomed@example.com');
    const res = await call('DELETE', `/api/users/${id}`);
    assert.equal(res.status, 200);
    assert.equal(res.text, '{"message":"User deleted successfully"}');
    assert.deepEqual(await usersFromDatabase(service.db, 'WHERE id = ?', [id]), []);
    const again = await call('DELETE', `/api/users/${id}`);
    assert.equal(again.status, 404);
    assert.deepEqual(again.json, USER_NOT_FOUND);
    const read = await call('GET', `/api/users/${id}`);
    assert.equal(read.status, 404);
    assert.deepEqual(read.json, USER_NOT_FOUND);
    const update = await call('PUT', `/api/users/${id}`, valid);
    assert.equal(update.status, 404);
    assert.deepEqual(update.json, USER_NOT_FOUND);
  });

  test('PUT on a deleted id with an invalid body -> 400 before 404', async () => {
    await call('POST', '/api/users', { name: 'Gone', email: 'gone@example.com' });
    const id = await idByEmail(service.db, 'gone@example.com');
    assert.equal((await call('DELETE', `/api/users/${id}`)).status, 200);
    const res = await call('PUT', `/api/users/${id}`, { name: 'x' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, REQUIRED);
  });
});
