import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { waitUntil } from '../helpers/poll-until.js';
import { Receiver } from './support/receiver.js';
import { createUser, endpointRegistered, renameUser, storedEvents, webhookEnv } from './support/webhooks.js';

describe('webhook delivery across a kill -9 of the service', () => {
  let receiver: Receiver;
  let db: TestDatabase;
  const children: ChildService[] = [];
  // Long enough that the held requests are still open when the service is killed.
  const env = () => webhookEnv(receiver, { WEBHOOK_TIMEOUT_S: '120' });
  const mark = async () => Number((await db.query<Array<{ queued_through: number }>>('SELECT queued_through FROM webhook_endpoints'))[0]!.queued_through);

  before(async () => {
    receiver = await Receiver.start();
    db = await createTestDatabase('hooks_kill');
  });
  after(async () => {
    for (const child of children) await child.process.stop();
    await receiver.close();
    await db.drop();
  });

  test('after kill -9 mid-delivery and a restart every event is delivered at least once, and none the service had recorded as acknowledged is sent again', async () => {
    const first = await spawnService(db.config, env());
    children.push(first);
    await endpointRegistered(db);

    // Acknowledged, and recorded as such (the mark has passed them).
    const early = await Promise.all(Array.from({ length: 10 }, (_, i) => createUser(first.baseUrl, `Early ${i}`)));
    const earlyIds = (await storedEvents(db)).map((event) => event.id);
    await waitUntil('the early events acknowledged and recorded', async () => earlyIds.every((id) => receiver.acknowledgedIds().includes(id)) && (await mark()) >= earlyIds.at(-1)!, { timeoutMs: 30_000 });

    // In flight when the service dies: some users' deliveries held open, the others' acknowledged.
    const held = new Set(early.slice(0, 3));
    receiver.answer = (delivery) => (held.has(delivery.event.data.id) ? 'hold' : 204);
    await Promise.all(early.map((id) => renameUser(first.baseUrl, id, 'Renamed')));
    const late = await Promise.all(Array.from({ length: 5 }, (_, i) => createUser(first.baseUrl, `Late ${i}`)));
    const all = (await storedEvents(db)).map((event) => event.id);
    await waitUntil('three deliveries held open', () => receiver.holding === 3, { timeoutMs: 30_000 });

    first.process.signal('SIGKILL');
    await first.process.exited;
    const markAtKill = await mark();
    const acknowledgedBefore = new Set(receiver.acknowledgedIds());
    const receivedBefore = receiver.received.length;
    assert.ok(markAtKill >= earlyIds.at(-1)! && markAtKill < all.at(-1)!, `the mark (${markAtKill}) is within the second batch`);

    receiver.answer = () => 204;
    const second = await spawnService(db.config, env());
    children.push(second);
    await waitUntil('every event acknowledged', () => all.every((id) => receiver.acknowledgedIds().includes(id)), { timeoutMs: 90_000 });
    // The restarted service took over once the killed one's lease ran out, from the mark on.
    assert.equal((await second.process.logEntry('delivering to webhook endpoint')).fromEventId, markAtKill + 1);

    const afterRestart = receiver.received.slice(receivedBefore).map((one) => one.event.id);
    for (const id of all) assert.ok(receiver.acknowledgedIds().includes(id), `event ${id} delivered at least once`);
    // Only what the mark had not passed is sent again: the events held open (never acknowledged),
    // and those acknowledged after the first of them (the mark never passes an event in flight).
    assert.deepEqual(afterRestart.filter((id) => id <= markAtKill), [], 'nothing recorded as handled before the kill is sent again');
    assert.ok(earlyIds.every((id) => acknowledgedBefore.has(id) && !afterRestart.includes(id)));
    const heldIds = receiver.received.slice(0, receivedBefore).filter((one) => one.status === undefined).map((one) => one.event.id);
    assert.equal(heldIds.length, 3);
    assert.ok(heldIds.every((id) => afterRestart.includes(id) && !acknowledgedBefore.has(id)), 'the deliveries cut by the kill are made again');
    assert.equal(new Set(afterRestart).size, afterRestart.length, 'each at most once after the restart');
    assert.equal(late.length, 5);
    assert.deepEqual(receiver.rejected, []);
    await waitUntil('no delivery left pending', async () => (await db.query<unknown[]>('SELECT 1 FROM webhook_deliveries')).length === 0, { timeoutMs: 30_000 });
  });
});
