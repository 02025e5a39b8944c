import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { createUser, endpointRegistered, renameUser, storedEvents, webhookEvents } from './support/webhooks.js';

const CONCURRENCY = 4;

describe('a slow webhook endpoint', () => {
  let receiver: Receiver;
  let service: RunningService;
  before(async () => {
    receiver = await Receiver.start();
    // Nothing is answered until the test says so: as slow as an endpoint can be within its timeout.
    receiver.answer = () => 'hold';
    service = await startService('hooks_slow', { events: webhookEvents(receiver, { timeoutSeconds: 120, concurrency: CONCURRENCY }) });
    await endpointRegistered(service.db);
  });
  after(async () => {
    await service.close();
    await receiver.close();
  });

  test('never holds up the API: writes and reads all answer while no delivery has completed', async () => {
    const users = await Promise.all(Array.from({ length: 40 }, (_, i) => createUser(service.baseUrl, `Slow ${i}`)));
    await waitUntil('deliveries in flight', () => receiver.holding > 0, { timeoutMs: 30_000 });
    for (const id of users.slice(0, 10)) await renameUser(service.baseUrl, id, 'Renamed');
    await Promise.all(users.slice(10).map((id) => renameUser(service.baseUrl, id, 'Renamed too')));
    const reads = await Promise.all(users.map((id) => request(service.baseUrl, 'GET', `/api/users/${id}`)));
    assert.ok(reads.every((res) => res.status === 200));
    assert.deepEqual(receiver.acknowledged(), [], 'every write above answered while no delivery had completed');
    assert.ok(receiver.holding > 0);
  });

  test('deliveries in flight to one endpoint never exceed WEBHOOK_CONCURRENCY', async () => {
    await waitUntil('the slots filled', () => receiver.holding === CONCURRENCY, { timeoutMs: 30_000 });
    assert.equal(receiver.maxInFlight, CONCURRENCY);
  });

  test('once the endpoint answers, every event is delivered', async () => {
    receiver.answer = () => 204;
    receiver.release(204);
    const ids = (await storedEvents(service.db)).map((event) => event.id);
    await waitUntil('every event acknowledged', () => ids.every((id) => receiver.acknowledgedIds().includes(id)), { timeoutMs: 60_000 });
    assert.deepEqual(receiver.overlaps, []);
  });

  test("one user's delivery held open does not hold back later events of other users", async () => {
    const slow = await createUser(service.baseUrl, 'Slowpoke user');
    await waitUntil('nothing else in flight', () => receiver.holding === 0, { timeoutMs: 30_000 });
    receiver.answer = (delivery) => (delivery.event.data.id === slow ? 'hold' : 204);
    await renameUser(service.baseUrl, slow, 'Still slow');
    await waitUntil('its delivery held open', () => receiver.holding === 1, { timeoutMs: 30_000 });
    // Written one by one, so that they are read after it, not together with it.
    const others: number[] = [];
    for (let i = 0; i < 10; i++) others.push(await createUser(service.baseUrl, `Quick ${i}`));
    await waitUntil('the others delivered', () => others.every((id) => receiver.acknowledged().some((one) => one.event.data.id === id)), { timeoutMs: 30_000 });
    assert.equal(receiver.holding, 1, 'the slow one is still in flight');
    receiver.release(204);
  });
});
