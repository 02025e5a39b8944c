import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConnectionSource } from '../../src/db/connect.js';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { Database } from '../../src/db/database.js';
import { endPool } from '../../src/db/pool.js';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { EventLog } from '../../src/events/event-log.js';
import { EndpointRows } from '../../src/events/webhooks/endpoint-rows.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';
import { createUser } from './support/webhooks.js';

const WAITING = '2038-01-01 00:00:00.000';

interface Row {
  event_id: number;
  user_id: number;
  state: string;
  attempts: number;
  waiting: number;
}

/** The storage rules of webhook delivery (EndpointRows), on the real tables, without any HTTP. */
describe('webhook delivery rows', () => {
  let service: RunningService;
  let pool: ConnectionSource;
  let db: Database;
  let serial = 0;
  /** A fresh endpoint per test, so tests share nothing. */
  const endpoint = async () => {
    const rows = new EndpointRows(db, new EventLog(db), String(++serial).padStart(64, '0'), `http://127.0.0.1/${serial}`);
    return { rows, through: await rows.open(), key: String(serial).padStart(64, '0') };
  };
  const stored = (key: string) =>
    service.db.query<Row[]>(`SELECT event_id, user_id, state, attempts, next_attempt_at >= '${WAITING}' AS waiting FROM webhook_deliveries WHERE endpoint = ? ORDER BY event_id`, [key]);
  const queued = (eventId: number, userId: number, attempts = 0, delaySeconds = 0) => ({ eventId, userId, attempts, error: attempts > 0 ? 'HTTP 500' : null, delaySeconds });

  const lastIdHandedOut = async () => {
    const [last] = await service.db.query<Array<{ last_id: number }>>('SELECT last_id FROM event_sequence WHERE id = 1');
    return Number(last?.last_id ?? 0);
  };

  before(async () => {
    service = await startService('hooks_rows', { events: { retentionSeconds: 86_400, webhooks: undefined } });
    // Some events, so that a new endpoint has a last id to start from.
    for (let i = 0; i < 3; i++) await createUser(service.baseUrl, `Rows ${i}`);
    // Ids are handed out just after a change commits, so the last may still be coming when its 201 is.
    await waitUntil('the three creates\' events have ids', async () => (await lastIdHandedOut()) === 3);
    pool = createConnectionSource(service.db.config, defaultTuning);
    db = new Database(pool, defaultTuning.operationTimeoutMs, defaultTuning.trustAnsweredWithinMs);
  });
  after(async () => {
    await endPool(pool);
    await service.close();
  });

  test('a new endpoint starts at the last event id handed out; opening it again keeps its mark', async () => {
    const { rows, through } = await endpoint();
    assert.equal(through, await lastIdHandedOut());
    assert.ok(await rows.commit(through, through + 5, []));
    assert.equal(await rows.open(), through + 5);
  });

  test('a commit names the mark it read: once another moved it, the commit changes nothing', async () => {
    const { rows, through, key } = await endpoint();
    assert.ok(await rows.commit(through, through + 2, []));
    assert.equal(await rows.commit(through, through + 4, [queued(through + 3, 1)]), false);
    assert.equal(await rows.open(), through + 2);
    assert.deepEqual(await stored(key), []);
  });

  test("a user's first queued delivery is due; the rest wait behind it, as do all of a user with one already pending", async () => {
    const { rows, through, key } = await endpoint();
    assert.ok(await rows.commit(through, 1010, [queued(1001, 1, 1, 0), queued(1002, 1), queued(1003, 2), queued(1004, 2)]));
    assert.ok(await rows.commit(1010, 1020, [queued(1011, 2), queued(1012, 3)]));
    assert.deepEqual(
      (await stored(key)).map(({ event_id, waiting }) => [event_id, Number(waiting)]),
      [[1001, 0], [1002, 1], [1003, 0], [1004, 1], [1011, 1], [1012, 0]],
    );
    assert.deepEqual(await rows.usersWithPending([1, 2, 3, 4]), new Set([1, 2, 3]));
  });

  test("only each user's oldest pending delivery is due; acknowledging it makes the user's next one due", async () => {
    const { rows, through, key } = await endpoint();
    assert.ok(await rows.commit(through, 2010, [queued(2001, 1), queued(2002, 1), queued(2003, 2)]));
    assert.deepEqual((await rows.due(10)).map((due) => due.eventId), [2001, 2003]);
    const first = (await rows.due(10)).find((due) => due.eventId === 2001)!;
    assert.equal(first.event, undefined, 'no such event in the outbox: none to send');
    await rows.delivered(first);
    assert.deepEqual((await rows.due(10)).map((due) => due.eventId).sort(), [2002, 2003]);
    assert.deepEqual((await stored(key)).map((row) => row.event_id), [2002, 2003]);
  });

  test('a failed attempt waits its pause; a delivery given up no longer holds back the next', async () => {
    const { rows, through, key } = await endpoint();
    assert.ok(await rows.commit(through, 3010, [queued(3001, 1), queued(3002, 1)]));
    const [due] = await rows.due(10);
    await rows.retryLater(due!, 'HTTP 503', 3600);
    assert.deepEqual(await rows.due(10), [], 'not due for an hour, and the next waits behind it');
    await service.db.query('UPDATE webhook_deliveries SET next_attempt_at = NOW(3) WHERE endpoint = ? AND event_id = 3001', [key]);
    const [again] = await rows.due(10);
    assert.equal(again!.attempts, 1);
    await rows.giveUp(again!, 'HTTP 503');
    assert.deepEqual((await rows.due(10)).map((one) => one.eventId), [3002]);
    assert.deepEqual((await stored(key)).map(({ event_id, state, attempts }) => [event_id, state, attempts]), [[3001, 'failed', 2], [3002, 'pending', 0]]);
  });

  test('a change naming attempts that are no longer the row\'s changes nothing (a stale holder)', async () => {
    const { rows, through, key } = await endpoint();
    assert.ok(await rows.commit(through, 4010, [queued(4001, 1)]));
    const [due] = await rows.due(10);
    await rows.retryLater(due!, 'HTTP 500', 0);
    await rows.delivered(due!);
    await rows.giveUp(due!, 'HTTP 500');
    assert.deepEqual((await stored(key)).map(({ state, attempts }) => [state, attempts]), [['pending', 1]]);
  });

  test('a delivery left waiting behind nothing is found and made due', async () => {
    const { rows, through, key } = await endpoint();
    assert.ok(await rows.commit(through, 5010, [queued(5001, 1), queued(5002, 1)]));
    await service.db.query('DELETE FROM webhook_deliveries WHERE endpoint = ? AND event_id = 5001', [key]);
    assert.deepEqual(await rows.due(10), []);
    assert.equal(await rows.wakeStranded(100), 1);
    assert.deepEqual((await rows.due(10)).map((one) => one.eventId), [5002]);
    assert.equal(await rows.wakeStranded(100), 0);
  });
});
