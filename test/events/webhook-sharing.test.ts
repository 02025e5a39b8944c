import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { waitUntil } from '../helpers/poll-until.js';
import { Receiver } from './support/receiver.js';
import { createUser, endpointRegistered, firstDeliveriesByUser, renameUser, storedEvents, webhookEnv } from './support/webhooks.js';

describe('webhook delivery shared by two instances of two workers each', () => {
  let receiver: Receiver;
  let db: TestDatabase;
  const children: ChildService[] = [];

  before(async () => {
    receiver = await Receiver.start();
    db = await createTestDatabase('hooks_sharing');
  });
  after(async () => {
    for (const child of children) await child.process.stop();
    await receiver.close();
    await db.drop();
  });

  /** Each user renamed `times` times, one after another per user, through the given instances in turn. */
  const changeAll = (users: number[], instances: ChildService[], times: number) =>
    Promise.all(users.map(async (id, u) => {
      for (let i = 0; i < times; i++) await renameUser(instances[(u + i) % instances.length]!.baseUrl, id, `Changed ${i}`);
    }));

  test('every event is delivered, never two deliveries of one event or of one user at once, and each user\'s in id order, also when an instance stops', async () => {
    const env = webhookEnv(receiver, { WORKERS: '2', WEBHOOK_CONCURRENCY: '4' });
    // One after the other: four processes starting at once can take long on a small machine.
    const a = await spawnService(db.config, env);
    children.push(a);
    const b = await spawnService(db.config, env);
    children.push(b);
    await endpointRegistered(db);
    // Some early events fail their first attempt: retries run beside new deliveries.
    const failedOnce = new Set<number>();
    receiver.answer = (delivery) => {
      const id = delivery.event.id;
      if (id % 5 !== 0 || id > 60 || failedOnce.has(id)) return 204;
      failedOnce.add(id);
      return 500;
    };

    const users = await Promise.all(Array.from({ length: 30 }, (_, i) => createUser((i % 2 === 0 ? a : b)!.baseUrl, `Shared ${i}`)));
    await changeAll(users, [a, b], 3);
    await waitUntil('some deliveries', () => receiver.acknowledged().length > 20, { timeoutMs: 30_000 });

    // One instance goes (its lease is given up, or runs out); the other carries on alone.
    a.process.signal('SIGTERM');
    await changeAll(users, [b], 2);
    assert.equal((await a.process.exited).code, 0);

    const events = (await storedEvents(db)).map((event) => event.id);
    await waitUntil('every event acknowledged', () => events.every((id) => receiver.acknowledgedIds().includes(id)), { timeoutMs: 90_000 });
    assert.deepEqual(receiver.overlaps, [], 'no delivery overlapped another of the same event or user');
    // After the other instance stopped, one of this one's workers delivered.
    await b.process.logEntry('delivering to webhook endpoint');
    assert.deepEqual(receiver.rejected, []);
    assert.ok(failedOnce.size > 0 && [...failedOnce].every((id) => receiver.acknowledgedIds().includes(id)), 'the failed first attempts were retried');
    const stored = await storedEvents(db);
    const byUser = firstDeliveriesByUser(receiver);
    for (const id of users) {
      assert.deepEqual(byUser.get(id), stored.filter((event) => event.user_id === id).map((event) => event.id), `user ${id}: in id order`);
    }
  });
});
