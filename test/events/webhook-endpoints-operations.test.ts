import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { waitUntil } from '../helpers/poll-until.js';
import type { RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { adminKeys, EndpointClient, endpointWebhooks, startAdminService, type AdminKeys, type Endpoint } from './support/endpoint-admin.js';

const BASE = '/api/webhooks/endpoints';

interface AttemptJson {
  event_id: number;
  status: 'succeeded' | 'failed';
  response_status: number | null;
  error: string | null;
}

let keys: AdminKeys;
/** Each test's services on a database of their own: a service delivers to every endpoint of its database. */
const databases: TestDatabase[] = [];
const services: RunningService[] = [];
const receivers: Receiver[] = [];

before(async () => {
  keys = await adminKeys();
});
after(async () => {
  await Promise.all(services.map((one) => one.close()));
  await Promise.all(databases.map((one) => one.drop()));
  await Promise.all(receivers.map((one) => one.close()));
  keys?.remove();
});

async function database(label: string): Promise<TestDatabase> {
  const made = await createTestDatabase(label);
  databases.push(made);
  return made;
}

async function started(label: string, webhooks = endpointWebhooks(), db?: TestDatabase): Promise<EndpointClient> {
  const service = await startAdminService(label, keys, webhooks, { db: db ?? (await database(label)) });
  services.push(service);
  return new EndpointClient(service.baseUrl, keys.admin.key);
}

async function receiver(): Promise<Receiver> {
  const made = await Receiver.start();
  receivers.push(made);
  return made;
}

async function attempts(client: EndpointClient, id: number): Promise<AttemptJson[]> {
  return (await client.call('GET', `${BASE}/${id}/attempts?limit=500`)).json as AttemptJson[];
}

/** A TCP listener on 127.0.0.1 that counts the connections it accepts, and closes each. */
async function connectionCounter(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, connections: () => count, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('endpoints in operation', () => {
  test('without WEBHOOK_ALLOW_NETWORKS an endpoint whose name resolves to loopback fails with "address not allowed", and nothing connects', async () => {
    const guarded = await started('hook_guard', endpointWebhooks({ allowNetworks: [] }));
    const counter = await connectionCounter();
    try {
      assert.equal((await guarded.call('POST', BASE, { url: `http://127.0.0.1:${counter.port}/x` })).status, 400, 'a literal loopback address is refused when made');
      const made = await guarded.create({ url: `http://localhost:${counter.port}/x` });
      await guarded.createUser(keys.writer.key, 'guarded');
      await waitUntil('the attempt logged', async () => (await attempts(guarded, made.id)).length > 0);
      const [attempt] = await attempts(guarded, made.id);
      assert.equal(attempt!.status, 'failed');
      assert.equal(attempt!.error, 'address not allowed');
      assert.equal(attempt!.response_status, null);
      assert.equal(counter.connections(), 0, 'no connection was made');
    } finally {
      await counter.close();
    }
  });

  test('an endpoint whose every attempt fails for WEBHOOK_DISABLE_AFTER is disabled with disabled_reason "failing"; enabling it clears the reason', async () => {
    const client = await started('hook_disable', endpointWebhooks({ disableAfterSeconds: 2 }));
    const gone = await receiver();
    await gone.refuse();
    const made = await client.create({ url: gone.url, secret: gone.secret });
    await client.createUser(keys.writer.key, 'failing');
    await waitUntil('disabled', async () => ((await client.call('GET', `${BASE}/${made.id}`)).json as Endpoint).disabled, { timeoutMs: 30_000 });
    const disabled = (await client.call('GET', `${BASE}/${made.id}`)).json as Endpoint;
    assert.equal(disabled.disabled_reason, 'failing');
    assert.ok(services.some((one) => one.logs.some((line) => line.includes('webhook endpoint disabled'))), 'a warning says so');
    const enabled = (await client.call('PATCH', `${BASE}/${made.id}`, { disabled: false })).json as Endpoint;
    assert.deepEqual([enabled.disabled, enabled.disabled_reason], [false, null]);
  });

  test('an endpoint answering 2xx again gets its deliveries waiting for a retry sent at once, not at their scheduled time', async () => {
    const db = await database('hook_back');
    const client = await started('hook_back', endpointWebhooks(), db);
    const hook = await receiver();
    let down = true;
    hook.answer = () => (down ? 503 : 204);
    const made = await client.create({ url: hook.url, secret: hook.secret });
    const first = await client.createUser(keys.writer.key, 'waiting');
    // Three failed attempts: the next is scheduled 30 s or more ahead.
    await waitUntil('three attempts failed', async () => (await attempts(client, made.id)).filter((one) => one.status === 'failed').length >= 3, { timeoutMs: 30_000 });
    const [row] = await db.query<Array<{ ahead: number }>>(
      "SELECT TIMESTAMPDIFF(SECOND, NOW(3), d.next_attempt_at) AS ahead FROM webhook_deliveries d JOIN webhook_subscriptions s USING (endpoint) WHERE s.id = ? AND d.state = 'pending'",
      [made.id],
    );
    assert.ok(row!.ahead >= 20, `the retry is scheduled ${row!.ahead} s ahead`);
    const scheduledAt = Date.now() + row!.ahead * 1000;
    down = false;
    await client.createUser(keys.writer.key, 'back');
    await waitUntil('the waiting delivery acknowledged', () => hook.acknowledged().some((one) => one.event.data.id === first), { timeoutMs: 30_000 });
    const arrived = hook.acknowledged().find((one) => one.event.data.id === first)!.arrivedAt;
    assert.ok(arrived < scheduledAt, 'sent before its scheduled retry');
  });

  test('two instances on one database: an endpoint made through one is delivered to by the other, and one disabled through one is left by both', async () => {
    const db = await database('hook_two');
    const one = await started('hook_one', endpointWebhooks(), db);
    const two = await started('hook_two', endpointWebhooks(), db);
    const hook = await receiver();
    const made = await one.create({ url: hook.url, secret: hook.secret });
    const startedAt = Date.now();
    const id = await two.createUser(keys.writer.key, 'shared');
    await waitUntil('delivered', () => hook.acknowledged().some((one) => one.event.data.id === id));
    const seconds = (Date.now() - startedAt) / 1000;
    assert.ok(seconds >= 0);
    const listed = (await two.call('GET', `${BASE}/${made.id}`)).json as Endpoint;
    assert.equal(listed.url, hook.url);
    assert.equal((await two.call('PATCH', `${BASE}/${made.id}`, { disabled: true })).status, 200);
    const seen = hook.received.length;
    await one.createUser(keys.writer.key, 'shared-after');
    await two.createUser(keys.writer.key, 'shared-after-2');
    const probe = await receiver();
    await one.create({ url: probe.url, secret: probe.secret });
    const last = await one.createUser(keys.writer.key, 'shared-last');
    await waitUntil('the probe got the last event', () => probe.acknowledged().some((each) => each.event.data.id === last));
    assert.equal(hook.received.length, seen, 'nothing sent after the answer to the disabling');
  });

  test('endpoints made, changed and deleted while deliveries run: those left lose no event, and a deleted or disabled one gets nothing after its answer', async () => {
    const db = await database('hook_churn');
    const client = await started('hook_churn', endpointWebhooks(), db);
    const stable = [await receiver(), await receiver()];
    for (const one of stable) await client.create({ url: one.url, secret: one.secret });
    const churned: Array<{ hook: Receiver; answeredAt: number }> = [];
    const users: number[] = [];
    const writing = (async () => {
      for (let i = 0; i < 40; i++) users.push(await client.createUser(keys.writer.key, `churn-${i}`));
    })();
    for (let round = 0; round < 4; round++) {
      const hook = await receiver();
      const made = await client.create({ url: hook.url, secret: hook.secret });
      await waitUntil('the new endpoint receiving', () => hook.received.length > 0 || users.length >= 40, { timeoutMs: 30_000 });
      const removed = round % 2 === 0 ? await client.call('DELETE', `${BASE}/${made.id}`) : await client.call('PATCH', `${BASE}/${made.id}`, { disabled: true });
      assert.ok(removed.status === 204 || removed.status === 200, removed.text);
      churned.push({ hook, answeredAt: Date.now() });
    }
    await writing;
    const last = users.at(-1)!;
    const probe = await receiver();
    await client.create({ url: probe.url, secret: probe.secret });
    const after = await client.createUser(keys.writer.key, 'churn-probe');
    await waitUntil('every stable endpoint got every user', () => stable.every((one) => users.every((id) => one.acknowledged().some((each) => each.event.data.id === id))), { timeoutMs: 60_000 });
    await waitUntil('the probe got the last event', () => probe.acknowledged().some((each) => each.event.data.id === after));
    for (const { hook, answeredAt } of churned) assert.deepEqual(hook.received.filter((each) => each.arrivedAt > answeredAt).map((each) => each.event.id), [], 'nothing after the answer');
    for (const one of stable) assert.deepEqual(one.overlaps, []);
    assert.ok(last > 0);
  });
});
