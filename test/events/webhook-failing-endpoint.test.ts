import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { scrape, valueOf } from '../helpers/metrics.js';
import { pollUntil, waitUntil } from '../helpers/poll-until.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { startService, type RunningService } from '../helpers/service.js';
import { Receiver, type Delivery } from './support/receiver.js';
import { createUser, endpointRegistered, storedEvents, webhookEvents } from './support/webhooks.js';

interface Row {
  attempts: number;
  last_error: string | null;
  /** Milliseconds from queued_at to next_attempt_at. */
  paused_ms: number;
  /** Milliseconds from now to next_attempt_at, by the database's clock. */
  left_ms: number;
}

/**
 * One endpoint failing three attempts of a delivery (500), then taking it, against the retry
 * schedule as docs/events.md and the README state it: retried at once, then after 5 s, then
 * after 30 s (each pause up to 10% longer). Meanwhile what an operator sees: the log, `npm run
 * webhooks -- pending`, and the gauges in /metrics.
 */
describe('an endpoint failing three attempts, then recovering: the retry schedule, and what the operator sees meanwhile', () => {
  let receiver: Receiver;
  let service: RunningService;
  let url: string;
  let eventId: number;
  let userId: number;
  const attempts = (): Delivery[] => receiver.received.filter((one) => one.event.id === eventId);
  const row = async (): Promise<Row | undefined> =>
    (
      await service.db.query<Row[]>(
        'SELECT attempts, last_error, TIMESTAMPDIFF(MICROSECOND, queued_at, next_attempt_at) / 1000 AS paused_ms, ' +
          'TIMESTAMPDIFF(MICROSECOND, NOW(3), next_attempt_at) / 1000 AS left_ms FROM webhook_deliveries WHERE event_id = ?',
        [eventId],
      )
    )[0];
  const rowWith = (count: number) => pollUntil(`the delivery row with ${count} attempts`, async () => {
    const found = await row();
    return found?.attempts === count ? found : undefined;
  }, { timeoutMs: 60_000, intervalMs: 20 });
  const gauge = async (name: string) => valueOf(await scrape(`${service.baseUrl}/metrics`), name, { endpoint: receiver.url });
  const lines = (msg: string) => service.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === msg);

  before(async () => {
    receiver = await Receiver.start();
    // A query may carry a token: it is never shown.
    url = `${receiver.url}?token=s3cret-token`;
    // The first and third attempts fail at once; the second and fourth are held until the test has looked.
    receiver.answer = (delivery) => {
      const nth = receiver.received.filter((one) => one.event.id === delivery.event.id).length;
      return nth === 2 || nth === 4 ? 'hold' : 500;
    };
    const events = webhookEvents(receiver);
    service = await startService('hooks_failing', { events: { ...events, webhooks: { ...events.webhooks!, urls: [url] } }, metrics: { onApiPort: true } });
    await endpointRegistered(service.db);
    userId = await createUser(service.baseUrl, 'Retried');
    eventId = (await storedEvents(service.db)).at(-1)!.id;
  });
  after(async () => {
    await service.close();
    await receiver.close();
  });

  test('a failed attempt is retried at once: its delivery is queued due the moment it is queued, and tried again', async () => {
    await waitUntil('the second attempt', () => receiver.holding === 1, { timeoutMs: 30_000 });
    const queued = await row();
    assert.equal(queued?.attempts, 1);
    assert.equal(queued?.last_error, 'HTTP 500');
    assert.equal(Number(queued?.paused_ms), 0, 'no pause before the second attempt');
    receiver.release(500);
  });

  test('after the second failure the next attempt waits 5 s (up to 10% more), and comes no sooner', async () => {
    const second = await rowWith(2);
    assert.ok(Number(second.left_ms) <= 5500, `next attempt in ${second.left_ms} ms`);
    await waitUntil('the third attempt answered', () => attempts()[2]?.answeredAt !== undefined, { timeoutMs: 30_000 });
    const [, two, three] = attempts();
    assert.ok(three!.arrivedAt - two!.answeredAt! >= 5000, `third attempt ${three!.arrivedAt - two!.answeredAt!} ms after the second failed`);
  });

  test('after the third failure the next attempt waits 30 s (up to 10% more)', async () => {
    const third = await rowWith(3);
    assert.ok(Number(third.left_ms) <= 33_000, `next attempt in ${third.left_ms} ms`);
  });

  test('npm run webhooks -- pending lists it meanwhile: endpoint (without its query), event, attempts, last error, next attempt', async () => {
    const listed = await runScript('src/commands/webhooks.ts', dbEnv(service.db.config), 30_000, { args: ['pending'] });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      new RegExp(
        `^${receiver.url.replace(/[.]/g, '\\.')}  event ${eventId}  user\\.created  user ${userId}  3 attempts  last error: HTTP 500  ` +
          'next attempt \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} UTC \\(in \\d+ s\\)$',
        'm',
      ),
    );
    assert.match(listed.stdout, /^1 pending webhook delivery\.$/m);
    assert.doesNotMatch(listed.stdout, /s3cret/);
  });

  test('/metrics shows the delivery pending to the endpoint (labelled without its query), none failed', async () => {
    await waitUntil('the pending gauge at 1', async () => (await gauge('webhook_deliveries_pending')) === 1, { timeoutMs: 30_000, intervalMs: 500 });
    assert.equal(await gauge('webhook_deliveries_failed'), 0);
    const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
    assert.doesNotMatch(text, /s3cret/);
  });

  test('the fourth attempt comes 30 s after the third failed, no sooner; its 2xx ends the retries', async () => {
    await waitUntil('the fourth attempt', () => receiver.holding === 1, { timeoutMs: 60_000 });
    const [, , three, four] = attempts();
    assert.ok(four!.arrivedAt - three!.answeredAt! >= 30_000, `fourth attempt ${four!.arrivedAt - three!.answeredAt!} ms after the third failed`);
    receiver.release(204);
    await waitUntil('the row gone', async () => (await row()) === undefined, { timeoutMs: 30_000 });
    assert.equal(attempts().length, 4);
  });

  test('the log says once that the endpoint is failing and once that it recovered, not once per attempt; never the query', () => {
    const failing = lines('webhook endpoint failing, its deliveries are retried');
    assert.equal(failing.length, 1, 'one warning for three failed attempts');
    assert.equal(failing[0]!.level, 'warn');
    assert.equal(failing[0]!.endpoint, receiver.url);
    assert.equal(failing[0]!.eventId, eventId);
    assert.equal(failing[0]!.error, 'HTTP 500');
    const recovered = lines('webhook endpoint recovered');
    assert.equal(recovered.length, 1);
    assert.equal(recovered[0]!.endpoint, receiver.url);
    assert.equal(recovered[0]!.failedAttempts, 3);
    assert.ok(Number(recovered[0]!.failingSeconds) >= 35, `failing for ${String(recovered[0]!.failingSeconds)} s`);
    for (const line of service.logs) assert.doesNotMatch(line, /s3cret/);
  });

  test('the pending gauge is back to 0 once the delivery was acknowledged', async () => {
    await waitUntil('the pending gauge at 0', async () => (await gauge('webhook_deliveries_pending')) === 0, { timeoutMs: 30_000, intervalMs: 500 });
    const families = await scrape(`${service.baseUrl}/metrics`);
    assert.ok(families.some((found) => found.name === 'webhook_deliveries_pending' && found.metrics.length === 1), 'the series is there, at 0');
  });
});
