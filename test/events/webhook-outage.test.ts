import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { createUser, endpointRegistered, firstDeliveriesByUser, renameUser, storedEvents, webhookEvents } from './support/webhooks.js';

describe('webhook delivery through an outage of the endpoint', () => {
  let receiver: Receiver;
  let service: RunningService;
  before(async () => {
    receiver = await Receiver.start();
    service = await startService('hooks_outage', { events: webhookEvents(receiver) });
    await endpointRegistered(service.db);
  });
  after(async () => {
    await service.close();
    await receiver.close();
  });

  /** Each user renamed `times` times, one after another per user, users side by side. */
  const renameEach = (users: number[], phase: string, times: number) =>
    Promise.all(users.map(async (id) => {
      for (let i = 0; i < times; i++) await renameUser(service.baseUrl, id, `${phase} ${i}`);
    }));

  test('events written while the endpoint answers 500 and then refuses connections are retried and all arrive once it is back, each user\'s in id order', async () => {
    const users = await Promise.all(Array.from({ length: 5 }, (_, i) => createUser(service.baseUrl, `Outage ${i}`)));
    await waitUntil('the creations delivered', () => users.every((id) => receiver.acknowledged().some((one) => one.event.data.id === id)), { timeoutMs: 30_000 });

    receiver.answer = () => 500;
    await renameEach(users, 'failing', 4);
    await waitUntil('a 500 for each user', () => users.every((id) => receiver.received.some((one) => one.event.data.id === id && one.status === 500)), { timeoutMs: 30_000 });

    await receiver.refuse();
    // New users have nothing pending: their first attempt finds the port closed. The others' events queue.
    const newcomers = await Promise.all(Array.from({ length: 3 }, (_, i) => createUser(service.baseUrl, `Refused ${i}`)));
    users.push(...newcomers);
    await renameEach(users, 'refused', 3);
    await waitUntil(
      'a refused attempt recorded',
      async () => (await service.db.query<unknown[]>("SELECT 1 FROM webhook_deliveries WHERE last_error LIKE '%ECONNREFUSED%'")).length > 0,
      { timeoutMs: 30_000 },
    );
    const pendingDuringOutage = await service.db.query<Array<{ n: number }>>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'pending'");

    receiver.answer = () => 204;
    await receiver.accept();
    const events = (await storedEvents(service.db)).filter((event) => users.includes(event.user_id));
    await waitUntil('every event acknowledged', () => events.every((event) => receiver.acknowledgedIds().includes(event.id)), { timeoutMs: 120_000 });

    assert.ok(Number(pendingDuringOutage[0]!.n) > 0, 'deliveries were pending during the outage');
    const answered500 = new Set(receiver.received.filter((one) => one.status === 500).map((one) => one.event.id));
    assert.ok([...answered500].every((id) => receiver.acknowledgedIds().includes(id)), 'every delivery answered 500 was retried until acknowledged');
    const byUser = firstDeliveriesByUser(receiver);
    for (const id of users) {
      const expected = events.filter((event) => event.user_id === id).map((event) => event.id);
      assert.deepEqual(byUser.get(id), expected, `user ${id}: first deliveries in id order, none missing`);
    }
    assert.deepEqual(receiver.overlaps, []);
    assert.deepEqual(receiver.rejected, []);
    await waitUntil('no delivery left pending', async () => (await service.db.query<unknown[]>('SELECT 1 FROM webhook_deliveries')).length === 0, { timeoutMs: 30_000 });
  });
});
