import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { portOf, request } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { literalRequest } from '../helpers/raw-request.js';
import { startService, type RunningService } from '../helpers/service.js';
import { assertErrorBody, JSON_CONTENT_TYPE, tableSnapshot } from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('patch');
});
after(() => service.close());

const MERGE_PATCH = 'application/merge-patch+json';
const patch = (id: number | string, body: unknown, contentType = MERGE_PATCH) =>
  request(service.baseUrl, 'PATCH', `/api/users/${id}`, { body: JSON.stringify(body), headers: { 'content-type': contentType } });
const stored = async (id: number) =>
  (await service.db.query<Array<{ name: string; email: string; ts: number }>>('SELECT name, email, UNIX_TIMESTAMP(created_at) AS ts FROM users WHERE id = ?', [id]))[0];

describe('PATCH /api/users/{id}: a partial update', () => {
  const rows: Array<{ rule: string; id: number; body: Record<string, unknown>; contentType?: string; expect: (before: { name: string; email: string }) => { name: string; email: string } }> = [
    { rule: 'name only (merge patch) -> name replaced, email kept', id: 1, body: { name: 'Only Name' }, expect: (b) => ({ name: 'Only Name', email: b.email }) },
    { rule: 'email only (merge patch) -> email replaced, name kept', id: 2, body: { email: 'only@patch.example' }, expect: (b) => ({ name: b.name, email: 'only@patch.example' }) },
    { rule: 'both fields -> both replaced', id: 3, body: { name: 'Both', email: 'both@patch.example' }, expect: () => ({ name: 'Both', email: 'both@patch.example' }) },
    { rule: 'application/json is accepted too', id: 4, body: { name: 'Plain JSON' }, contentType: 'application/json', expect: (b) => ({ name: 'Plain JSON', email: b.email }) },
    { rule: 'id and created_at in the body are ignored', id: 5, body: { name: 'Ignored rest', id: 77, created_at: '2000-01-01T00:00:00.000Z' }, expect: (b) => ({ name: 'Ignored rest', email: b.email }) },
    { rule: 'Unicode up to 100 code points is stored as sent', id: 6, body: { name: '😀'.repeat(100) }, expect: (b) => ({ name: '😀'.repeat(100), email: b.email }) },
  ];
  for (const row of rows) {
    test(`${row.rule} -> 200 {"message": "User updated successfully"} with the new ETag`, async () => {
      const before = (await stored(row.id))!;
      const res = await patch(row.id, row.body, row.contentType);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
      assert.deepEqual(res.json, { message: 'User updated successfully' });
      const after = (await stored(row.id))!;
      assert.deepEqual({ name: after.name, email: after.email }, row.expect(before));
      assert.equal(after.ts, before.ts, 'created_at unchanged');
      const read = await request(service.baseUrl, 'GET', `/api/users/${row.id}`);
      assert.equal(res.headers.get('etag'), read.headers.get('etag'));
    });
  }
  test('no user with that id (valid body) -> 404 User not found, nothing stored', async () => {
    for (const id of [999999, 0, 99999999999]) {
      const before = await tableSnapshot(service.db);
      const res = await patch(id, { name: 'Ghost' });
      assert.equal(res.status, 404, res.text);
      assertErrorBody(res, 'User not found');
      assert.deepEqual(await tableSnapshot(service.db), before);
    }
  });
});

describe('PATCH bodies that are refused -> 400 naming the field, checked before the user exists, nothing changed', () => {
  const rows: Array<[what: string, body: unknown, error: string]> = [
    ['an empty object', {}, 'Name or email required'],
    ['neither name nor email', { id: 3, nickname: 'x' }, 'Name or email required'],
    ['an empty name', { name: '' }, 'name must not be empty'],
    ['a whitespace-only email', { email: ' \t' }, 'email must not be empty'],
    ['a null name', { name: null }, 'name must be a string'],
    ['a numeric email', { email: 5 }, 'email must be a string'],
    ['a name of 101 code points', { name: '😀'.repeat(101) }, 'name must be at most 100 characters'],
    ['an email of 101 characters', { email: 'e'.repeat(101) }, 'email must be at most 100 characters'],
    ['a valid name with an empty email', { name: 'Fine', email: '' }, 'email must not be empty'],
    ['a name with a control character', { name: 'A\u0007' }, 'name must not contain control characters'],
    ['a JSON array', [], 'Request body must be a JSON object'],
  ];
  for (const [what, body, error] of rows) {
    for (const id of [1, 999999]) {
      test(`PATCH /api/users/${id} with ${what} -> 400 ${error}`, async () => {
        const before = await tableSnapshot(service.db);
        const res = await patch(id, body);
        assert.equal(res.status, 400, res.text);
        assertErrorBody(res, error);
        assert.deepEqual(await tableSnapshot(service.db), before);
      });
    }
  }

  test('PATCH with Content-Type text/plain -> 415, as for PUT', async () => {
    const res = await patch(1, { name: 'x' }, 'text/plain');
    assert.equal(res.status, 415);
    assertErrorBody(res, 'Content-Type must be application/json');
  });

  test('PATCH with invalid JSON -> 400 Invalid JSON body', async () => {
    const res = await request(service.baseUrl, 'PATCH', '/api/users/1', { body: '{"name":', headers: { 'content-type': MERGE_PATCH } });
    assert.equal(res.status, 400);
    assertErrorBody(res, 'Invalid JSON body');
  });

  test('PATCH with a declared body over 1 MiB -> 413, refused before it is read', async () => {
    const raw = await rawExchange(
      portOf(service.baseUrl),
      literalRequest(`PATCH /api/users/1 HTTP/1.1\r\nHost: t\r\nContent-Type: ${MERGE_PATCH}\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`),
    );
    assert.equal(raw.status, 413);
    assert.deepEqual(raw.json, { error: 'Request body too large (limit 1 MiB)' });
  });

  test('PATCH on the collection -> 405 with Allow; on /api/users/ -> 404 (no route)', async () => {
    const res = await patch('', { name: 'x' });
    assert.equal(res.status, 404, 'the path /api/users/ has no route');
    const collection = await request(service.baseUrl, 'PATCH', '/api/users', { json: { name: 'x' } });
    assert.equal(collection.status, 405);
    assert.equal(collection.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
  });
});
