import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';
import { allNumbered, writtenEvents } from './support/numbered.js';


const EVENTS_ON = { retentionSeconds: 7 * 86_400, webhooks: undefined };

describe('the outbox (EVENTS=on): one event per acknowledged change, written with it', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('outbox', { events: EVENTS_ON, integrity: { uniqueEmail: true } });
  });
  after(() => service.close());

  // In the order written, numbered or not: an event exists as soon as its change is acknowledged.
  const lastId = async () => (await writtenEvents(service.db)).length;
  const since = async (count: number) => (await writtenEvents(service.db)).slice(count);

  test('a create records user.created with the stored fields and the request id of the request that made it', async () => {
    const start = await lastId();
    const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Eve', email: 'eve@events.example' }, headers: { 'x-request-id': 'create-eve-1' } });
    assert.equal(res.status, 201);
    const id = Number(res.headers.get('location')!.split('/').pop());
    assert.deepEqual(
      (await since(start)).map(({ type, user_id, name, email, request_id }) => ({ type, user_id, name, email, request_id })),
      [{ type: 'user.created', user_id: id, name: 'Eve', email: 'eve@events.example', request_id: 'create-eve-1' }],
    );
  });

  test('PUT, PATCH and DELETE record user.updated (the fields after the change) and user.deleted (the id alone)', async () => {
    const start = await lastId();
    assert.equal((await request(service.baseUrl, 'PUT', '/api/users/2', { json: { name: 'Put', email: 'put@events.example' } })).status, 200);
    assert.equal((await request(service.baseUrl, 'PATCH', '/api/users/2', { json: { name: 'Patched' } })).status, 200);
    assert.equal((await request(service.baseUrl, 'DELETE', '/api/users/3')).status, 200);
    assert.deepEqual(
      (await since(start)).map(({ type, user_id, name, email }) => ({ type, user_id, name, email })),
      [
        { type: 'user.updated', user_id: 2, name: 'Put', email: 'put@events.example' },
        { type: 'user.updated', user_id: 2, name: 'Patched', email: 'put@events.example' },
        { type: 'user.deleted', user_id: 3, name: null, email: null },
      ],
    );
  });

  test('refused writes record nothing: unknown ids, failed preconditions, an email already taken, bad bodies', async () => {
    const start = await lastId();
    const answers = await Promise.all([
      request(service.baseUrl, 'PUT', '/api/users/999999', { json: { name: 'X', email: 'x@events.example' } }),
      request(service.baseUrl, 'PATCH', '/api/users/999999', { json: { name: 'X' } }),
      request(service.baseUrl, 'DELETE', '/api/users/999999'),
      request(service.baseUrl, 'PUT', '/api/users/4', { json: { name: 'X', email: 'x@events.example' }, headers: { 'if-match': '"stale"' } }),
      request(service.baseUrl, 'DELETE', '/api/users/4', { headers: { 'if-match': '"stale"' } }),
      request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Dup', email: 'john@example.com' } }),
      request(service.baseUrl, 'PUT', '/api/users/5', { json: { name: 'Dup', email: 'bob@example.com' } }),
      request(service.baseUrl, 'POST', '/api/users', { json: { name: 'No email' } }),
    ]);
    assert.deepEqual(answers.map((res) => res.status), [404, 404, 404, 412, 412, 409, 409, 400]);
    assert.deepEqual(await since(start), []);
  });

  test('conditional writes that pass record their event', async () => {
    const start = await lastId();
    const etag = (await request(service.baseUrl, 'GET', '/api/users/6')).headers.get('etag')!;
    assert.equal((await request(service.baseUrl, 'PUT', '/api/users/6', { json: { name: 'If', email: 'if@events.example' }, headers: { 'if-match': etag } })).status, 200);
    const etag2 = (await request(service.baseUrl, 'GET', '/api/users/6')).headers.get('etag')!;
    assert.equal((await request(service.baseUrl, 'DELETE', '/api/users/6', { headers: { 'if-match': etag2 } })).status, 200);
    assert.deepEqual((await since(start)).map(({ type, user_id }) => `${type} ${user_id}`), ['user.updated 6', 'user.deleted 6']);
  });

  test('concurrent creates and updates (coalesced into shared statements) each record exactly one event', async () => {
    const start = await lastId();
    const creates = await Promise.all(
      Array.from({ length: 60 }, (_, i) => request(service.baseUrl, 'POST', '/api/users', { json: { name: `Many ${i}`, email: `many${i}@events.example` }, headers: { 'x-request-id': `many-${i}` } })),
    );
    assert.ok(creates.every((res) => res.status === 201));
    const ids = creates.map((res) => Number(res.headers.get('location')!.split('/').pop()));
    const updates = await Promise.all(ids.map((id, i) => request(service.baseUrl, 'PUT', `/api/users/${id}`, { json: { name: `Changed ${i}`, email: `changed${i}@events.example` } })));
    assert.ok(updates.every((res) => res.status === 200));
    const events = await since(start);
    assert.deepEqual(events.filter((e) => e.type === 'user.created').map((e) => `${e.user_id} ${e.request_id}`).sort(), ids.map((id, i) => `${id} many-${i}`).sort());
    assert.deepEqual(events.filter((e) => e.type === 'user.updated').map((e) => `${e.user_id} ${e.name}`).sort(), ids.map((id, i) => `${id} Changed ${i}`).sort());
    await allNumbered(service.db);
    const numbered = (await since(start)).sort((a, b) => a.id! - b.id!);
    assert.equal(new Set(numbered.map((e) => e.id)).size, numbered.length, 'ids distinct');
    for (const id of ids) {
      const mine = numbered.filter((e) => e.user_id === id).map((e) => e.type);
      assert.deepEqual(mine, ['user.created', 'user.updated'], `user ${id}: created before updated, in id order`);
    }
  });

  test('many concurrent PUTs of one user (several in one shared statement) each record an event, and the last in id order is the user as stored', async () => {
    const start = await lastId();
    const puts = await Promise.all(
      Array.from({ length: 40 }, (_, i) => request(service.baseUrl, 'PUT', '/api/users/7', { json: { name: `Hot ${i}`, email: `hot${i}@events.example` } })),
    );
    assert.ok(puts.every((res) => res.status === 200));
    await allNumbered(service.db);
    const events = (await since(start)).sort((a, b) => a.id! - b.id!);
    assert.deepEqual(events.map((e) => e.name).sort(), Array.from({ length: 40 }, (_, i) => `Hot ${i}`).sort(), 'one event per change, each with its own values');
    const stored = (await request(service.baseUrl, 'GET', '/api/users/7')).json as { name: string; email: string };
    assert.deepEqual({ name: events.at(-1)!.name, email: events.at(-1)!.email }, { name: stored.name, email: stored.email });
    assert.deepEqual(events.map((e) => e.id), events.map((_, i) => events[0]!.id! + i), 'ids without a hole');
  });
});

describe('with EVENTS off (the default): no outbox at all', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('outbox_off');
  });
  after(() => service.close());

  test('no event tables are created and writes still succeed', async () => {
    assert.equal((await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Plain', email: 'plain@events.example' } })).status, 201);
    const tables = await service.db.query<Array<{ name: string }>>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1');
    assert.deepEqual(tables.map((t) => t.name), ['schema_migrations', 'users']);
  });
});
