import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { waitUntil } from '../helpers/poll-until.js';
import type { RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { adminKeys, EndpointClient, endpointWebhooks, startAdminService, type AdminKeys, type Endpoint } from './support/endpoint-admin.js';

const BASE = '/api/webhooks/endpoints';

interface AttemptJson {
  event_id: number;
  event_type: string;
  attempted_at: string;
  status: 'succeeded' | 'failed';
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

let keys: AdminKeys;
let db: TestDatabase;
let service: RunningService;
let admin: EndpointClient;
const receivers: Receiver[] = [];

async function receiver(): Promise<Receiver> {
  const made = await Receiver.start();
  receivers.push(made);
  return made;
}

function user(name: string): Promise<number> {
  return admin.createUser(keys.writer.key, name);
}

async function updateUser(id: number, name: string): Promise<void> {
  const res = await admin.call('PUT', `/api/users/${id}`, { name, email: `${name}@example.com` }, { authorization: `Bearer ${keys.writer.key}` });
  assert.equal(res.status, 200);
}

async function deleteUser(id: number): Promise<void> {
  assert.equal((await admin.call('DELETE', `/api/users/${id}`, undefined, { authorization: `Bearer ${keys.writer.key}` })).status, 200);
}

/** The ids of the events about a user, in id order, from the outbox. */
async function eventsOf(userId: number): Promise<number[]> {
  await waitUntil('the events numbered', async () => (await db.query<unknown[]>('SELECT 1 FROM event_batches WHERE last_id IS NULL')).length === 0, { intervalMs: 50 });
  const rows = await db.query<Array<{ first_id: number; last_id: number; events: string }>>('SELECT first_id, last_id, events FROM event_batches ORDER BY last_id');
  const ids: number[] = [];
  for (const row of rows) {
    (JSON.parse(row.events) as unknown[][]).forEach((event, i) => {
      if (event[1] === userId) ids.push(Number(row.first_id) + i);
    });
  }
  return ids;
}

before(async () => {
  keys = await adminKeys();
  db = await createTestDatabase('hook_delivery');
  service = await startAdminService('hook_delivery', keys, endpointWebhooks(), { db });
  admin = new EndpointClient(service.baseUrl, keys.admin.key);
});
after(async () => {
  await service?.close();
  await db?.drop();
  await Promise.all(receivers.map((one) => one.close()));
  keys?.remove();
});

describe('deliveries to endpoints made through the API', () => {
  test('each endpoint gets the events of its event_types only, signed with its own secret', async () => {
    const [all, deletes] = [await receiver(), await receiver()];
    await admin.create({ url: all.url, secret: all.secret });
    await admin.create({ url: deletes.url, secret: deletes.secret, event_types: ['user.deleted'] });
    const id = await user('typed');
    await updateUser(id, 'typed2');
    await deleteUser(id);
    const [created, updated, deleted] = await eventsOf(id);
    await waitUntil('both endpoints acknowledged', () => all.acknowledgedIds().includes(deleted!) && deletes.acknowledgedIds().includes(deleted!));
    assert.deepEqual(all.acknowledgedIds().filter((event) => [created, updated, deleted].includes(event)), [created, updated, deleted]);
    assert.deepEqual(deletes.acknowledgedIds(), [deleted], 'only user.deleted');
    assert.deepEqual([...all.rejected, ...deletes.rejected], [], 'every delivery verified with its own endpoint secret');
  });

  test('after a rotation both keys sign until the grace ends (each verified by standardwebhooks); with no grace only the new key signs', async () => {
    const hook = await receiver();
    const made = await admin.create({ url: hook.url, secret: hook.secret });
    const { key: second } = (await admin.call('POST', `${BASE}/${made.id}/secret/rotate`, { grace_seconds: 3600 })).json as { key: string };
    const first = await user('rotated');
    await waitUntil('the delivery after the rotation', () => hook.acknowledged().some((one) => one.event.data.id === first));
    const overlap = hook.acknowledged().find((one) => one.event.data.id === first)!;
    assert.equal(overlap.signed['webhook-signature'].split(' ').length, 2, 'one signature per valid key');
    for (const secret of [hook.secret, second]) assert.doesNotThrow(() => new Webhook(secret).verify(overlap.body, overlap.signed), 'verified with either key');

    const { key: third } = (await admin.call('POST', `${BASE}/${made.id}/secret/rotate`, { grace_seconds: 0 })).json as { key: string };
    const moved = await Receiver.start(third);
    receivers.push(moved);
    assert.equal((await admin.call('PATCH', `${BASE}/${made.id}`, { url: moved.url })).status, 200);
    const later = await user('rotated-again');
    await waitUntil('the delivery after the second rotation', () => moved.acknowledged().some((one) => one.event.data.id === later));
    const single = moved.acknowledged().find((one) => one.event.data.id === later)!;
    assert.equal(single.signed['webhook-signature'].split(' ').length, 1, 'no grace: the new key alone signs');
    for (const old of [hook.secret, second]) assert.throws(() => new Webhook(old).verify(single.body, single.signed), 'a replaced key no longer verifies');
    assert.equal(hook.received.filter((one) => one.event.data.id === later).length, 0, 'the changed URL is used');
  });

  test('the attempts log shows each attempt newest first, filtered by status and type, paged by Link; stats count them', async () => {
    const hook = await receiver();
    const made = await admin.create({ url: hook.url, secret: hook.secret, event_types: ['user.created'] });
    const failing = new Set<number>();
    hook.answer = (delivery) => (failing.has(delivery.event.data.id) ? 500 : 204);
    const ok = await user('logged-ok');
    const bad = await user('logged-bad');
    failing.add(bad);
    await waitUntil('both attempted', async () => {
      const log = await attempts(made.id);
      return log.some((one) => one.status === 'succeeded') && log.some((one) => one.status === 'failed');
    });
    const log = await attempts(made.id);
    assert.deepEqual(log.map((one) => one.attempted_at), [...log.map((one) => one.attempted_at)].sort().reverse(), 'newest first');
    const failed = log.find((one) => one.status === 'failed')!;
    assert.equal(failed.response_status, 500);
    assert.equal(failed.event_type, 'user.created');
    assert.equal(typeof failed.duration_ms, 'number');
    const succeeded = log.find((one) => one.status === 'succeeded')!;
    assert.equal(succeeded.response_status, 204);
    assert.equal(succeeded.error, null);
    assert.ok(ok > 0);

    const onlyFailed = (await admin.call('GET', `${BASE}/${made.id}/attempts?status=failed`)).json as AttemptJson[];
    assert.ok(onlyFailed.length > 0 && onlyFailed.every((one) => one.status === 'failed'));
    assert.deepEqual((await admin.call('GET', `${BASE}/${made.id}/attempts?event_type=user.deleted`)).json, []);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.deepEqual((await admin.call('GET', `${BASE}/${made.id}/attempts?after=${encodeURIComponent(future)}`)).json, []);

    const first = await admin.call('GET', `${BASE}/${made.id}/attempts?limit=1`);
    const link = first.headers.get('link');
    assert.match(link ?? '', /^<\/api\/webhooks\/endpoints\/\d+\/attempts\?[^>]*>; rel="next"$/);
    const next = await admin.call('GET', /^<([^>]+)>/.exec(link!)![1]!);
    assert.equal(next.status, 200);
    assert.deepEqual((next.json as AttemptJson[])[0], log[1], 'the next page starts after the last attempt shown');

    type Stats = { succeeded: number; failed: number; pending: number };
    // The failed delivery is queued when the dispatcher next commits, just after its attempt is logged.
    await waitUntil('the failed delivery pending', async () => ((await admin.call('GET', `${BASE}/${made.id}/stats`)).json as Stats).pending === 1);
    const stats = (await admin.call('GET', `${BASE}/${made.id}/stats`)).json as Stats;
    const now = await attempts(made.id);
    assert.equal(stats.succeeded, now.filter((one) => one.status === 'succeeded').length);
    assert.ok(stats.failed >= 1 && stats.failed <= now.filter((one) => one.status === 'failed').length + 1);
    assert.equal(stats.pending, 1, "the failing user's delivery waits for its retry");
  });

  test('a disabled endpoint gets nothing; recover then delivers every event it missed exactly once, in per-user order', async () => {
    const hook = await receiver();
    const made = await admin.create({ url: hook.url, secret: hook.secret });
    const id = await user('recovered');
    const [created] = await eventsOf(id);
    await waitUntil('the first event acknowledged', () => hook.acknowledgedIds().includes(created!));
    const since = new Date().toISOString();
    const disabled = await admin.call('PATCH', `${BASE}/${made.id}`, { disabled: true });
    assert.equal(disabled.status, 200);
    assert.equal((disabled.json as Endpoint).disabled, true);
    const seen = hook.received.length;
    await updateUser(id, 'recovered-1');
    await updateUser(id, 'recovered-2');
    const other = await user('recovered-other');
    const missed = [...(await eventsOf(id)).slice(1), ...(await eventsOf(other))];
    assert.equal(missed.length, 3);

    assert.equal((await admin.call('PATCH', `${BASE}/${made.id}`, { disabled: false })).status, 200);
    const afterwards = await user('recovered-after');
    const [afterEvent] = await eventsOf(afterwards);
    await waitUntil('the event after enabling acknowledged', () => hook.acknowledgedIds().includes(afterEvent!));
    assert.deepEqual(hook.received.slice(seen).map((one) => one.event.id), [afterEvent], 'nothing recorded while disabled was sent');

    const recovered = await admin.call('POST', `${BASE}/${made.id}/recover`, { since });
    assert.equal(recovered.status, 202);
    assert.deepEqual(recovered.json, { events: 3 });
    await waitUntil('every missed event acknowledged', () => missed.every((event) => hook.acknowledgedIds().includes(event)));
    const counts = hook.acknowledgedIds().filter((event) => missed.includes(event));
    assert.deepEqual([...counts].sort((a, b) => a - b), missed.sort((a, b) => a - b), 'each once');
    const ofUser = hook.acknowledged().filter((one) => one.event.data.id === id).map((one) => one.event.id);
    assert.deepEqual(ofUser, [...ofUser].sort((a, b) => a - b), "the user's events in order");
    assert.deepEqual(hook.overlaps, []);
  });

  test('resend delivers one event again; an event of a type the endpoint does not take is 404', async () => {
    const hook = await receiver();
    const made = await admin.create({ url: hook.url, secret: hook.secret, event_types: ['user.created'] });
    const id = await user('resent');
    const [created] = await eventsOf(id);
    await waitUntil('acknowledged once', () => hook.acknowledgedIds().includes(created!));
    assert.equal((await admin.call('POST', `${BASE}/${made.id}/events/${created}/resend`)).status, 202);
    await waitUntil('acknowledged twice', () => hook.acknowledgedIds().filter((event) => event === created).length === 2);
    await deleteUser(id);
    const deleted = (await eventsOf(id)).at(-1)!;
    assert.equal((await admin.call('POST', `${BASE}/${made.id}/events/${deleted}/resend`)).status, 404);
  });

  test('an endpoint deleted while a delivery to it is in flight gets nothing more from the moment of the answer', async () => {
    const hook = await receiver();
    hook.answer = () => 'hold';
    const made = await admin.create({ url: hook.url, secret: hook.secret });
    await user('held-1');
    await waitUntil('a delivery held', () => hook.holding > 0);
    const removed = await admin.call('DELETE', `${BASE}/${made.id}`);
    assert.equal(removed.status, 204);
    const seen = hook.received.length;
    hook.answer = () => 204;
    hook.release(204);
    await user('held-2');
    await user('held-3');
    const probe = await receiver();
    await admin.create({ url: probe.url, secret: probe.secret });
    const last = await user('held-4');
    await waitUntil('a later endpoint got the last event', () => probe.acknowledged().some((one) => one.event.data.id === last));
    assert.equal(hook.received.length, seen, 'nothing sent to the deleted endpoint after its 204');
    assert.equal((await db.query<unknown[]>('SELECT 1 FROM webhook_deliveries d JOIN webhook_subscriptions s USING (endpoint) WHERE s.id = ?', [made.id])).length, 0);
  });
});

async function attempts(id: number): Promise<AttemptJson[]> {
  return (await admin.call('GET', `${BASE}/${id}/attempts?limit=500`)).json as AttemptJson[];
}
