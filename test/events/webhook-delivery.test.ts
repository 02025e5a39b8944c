import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { createUser, endpointRegistered, eventBodies, storedEvents, webhookEvents } from './support/webhooks.js';

describe('webhook delivery: each acknowledged change is POSTed to the endpoint, signed', () => {
  let receiver: Receiver;
  let service: RunningService;
  before(async () => {
    receiver = await Receiver.start();
    service = await startService('hooks_deliver', { events: webhookEvents(receiver) });
    await endpointRegistered(service.db);
  });
  after(async () => {
    await service.close();
    await receiver.close();
  });

  test('POST, PUT, PATCH and DELETE each produce exactly one verified delivery with the type, data and request id of the change', async () => {
    const id = await createUser(service.baseUrl, 'Hooked', 'hook-create-1');
    const put = await request(service.baseUrl, 'PUT', `/api/users/${id}`, { json: { name: 'Put', email: 'put@hooks.example' }, headers: { 'x-request-id': 'hook-put-1' } });
    assert.equal(put.status, 200);
    const patch = await request(service.baseUrl, 'PATCH', `/api/users/${id}`, { json: { name: 'Patched' }, headers: { 'x-request-id': 'hook-patch-1' } });
    assert.equal(patch.status, 200);
    const del = await request(service.baseUrl, 'DELETE', `/api/users/${id}`, { headers: { 'x-request-id': 'hook-delete-1' } });
    assert.equal(del.status, 200);

    const mine = () => receiver.acknowledged().filter((one) => one.event.data.id === id);
    await waitUntil('four deliveries', () => mine().length >= 4, { timeoutMs: 30_000 });
    assert.deepEqual(receiver.rejected, []);
    const createdAt = (mine()[0]!.event.data as { created_at?: string }).created_at;
    assert.match(String(createdAt), /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(
      mine().map(({ event }) => ({ type: event.type, request_id: event.request_id, data: event.data })),
      [
        { type: 'user.created', request_id: 'hook-create-1', data: { id, name: 'Hooked', email: 'hooked@hooks.example', created_at: createdAt } },
        { type: 'user.updated', request_id: 'hook-put-1', data: { id, name: 'Put', email: 'put@hooks.example', created_at: createdAt } },
        { type: 'user.updated', request_id: 'hook-patch-1', data: { id, name: 'Patched', email: 'put@hooks.example', created_at: createdAt } },
        { type: 'user.deleted', request_id: 'hook-delete-1', data: { id } },
      ],
    );
  });

  test('the body is exactly the event JSON the outbox renders, as application/json, with webhook-id evt_<event id>', async () => {
    const id = await createUser(service.baseUrl, 'Bodied');
    await waitUntil('the delivery', () => receiver.acknowledged().some((one) => one.event.data.id === id), { timeoutMs: 30_000 });
    const bodies = await eventBodies(service.db);
    for (const delivery of receiver.acknowledged()) {
      assert.equal(delivery.body, bodies.get(delivery.event.id), `event ${delivery.event.id}`);
      assert.equal(delivery.contentType, 'application/json');
      assert.equal(delivery.webhookId, `evt_${delivery.event.id}`);
    }
  });

  test('every event is delivered exactly once while nothing fails, also with a second instance sharing the endpoint', async () => {
    const second = await startService('hooks_deliver_2', { db: service.db, events: webhookEvents(receiver) });
    try {
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => createUser(second.baseUrl, `Shared ${i}`)));
      await waitUntil('the twenty deliveries', () => ids.every((id) => receiver.acknowledged().some((one) => one.event.data.id === id)), { timeoutMs: 30_000 });
    } finally {
      await second.close();
    }
    const first = Math.min(...receiver.received.map((one) => one.event.id));
    const delivered = receiver.acknowledgedIds();
    assert.deepEqual([...delivered].sort((a, b) => a - b), (await storedEvents(service.db)).map((event) => event.id).filter((id) => id >= first));
    assert.equal(new Set(delivered).size, delivered.length, 'no event twice');
    assert.deepEqual(receiver.overlaps, []);
  });

  test('an endpoint added later starts at the last event recorded then: history is not replayed to it', async () => {
    const before = (await storedEvents(service.db)).at(-1)!.id;
    const late = await Receiver.start(receiver.secret);
    const events = webhookEvents(receiver);
    const both = await startService('hooks_deliver_3', { db: service.db, events: { ...events, webhooks: { ...events.webhooks!, urls: [receiver.url, late.url] } } });
    try {
      await waitUntil('the second endpoint to be registered', async () => (await service.db.query<unknown[]>('SELECT 1 FROM webhook_endpoints')).length === 2, { timeoutMs: 30_000 });
      const id = await createUser(both.baseUrl, 'Late');
      await waitUntil('the new event at the late endpoint', () => late.received.some((one) => one.event.data.id === id), { timeoutMs: 30_000 });
      assert.ok(late.received.every((one) => one.event.id > before), 'only events after it was added');
    } finally {
      await both.close();
      await late.close();
    }
  });

  test('nothing is left pending once every delivery was acknowledged', async () => {
    const rows = await service.db.query<unknown[]>('SELECT * FROM webhook_deliveries');
    assert.deepEqual(rows, []);
  });
});
