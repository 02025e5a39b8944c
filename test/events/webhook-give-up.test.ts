import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countOf, scrape, valueOf } from '../helpers/metrics.js';
import { waitUntil } from '../helpers/poll-until.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { startService, type RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { createUser, endpointRegistered, renameUser, storedEvents, webhookEvents } from './support/webhooks.js';

const WEBHOOKS = 'src/commands/webhooks.ts';

interface DeliveryRow {
  event_id: number;
  state: string;
  attempts: number;
  last_error: string | null;
}

describe('a delivery failing for the whole retry period (WEBHOOK_RETRY_FOR), and npm run webhooks', () => {
  let receiver: Receiver;
  let service: RunningService;
  let userId: number;
  let eventId: number;
  const rows = () => service.db.query<DeliveryRow[]>('SELECT event_id, state, attempts, last_error FROM webhook_deliveries ORDER BY event_id');
  const tool = (...args: string[]) => runScript(WEBHOOKS, dbEnv(service.db.config), 30_000, { args });

  before(async () => {
    receiver = await Receiver.start();
    receiver.answer = () => 500;
    service = await startService('hooks_give_up', { events: webhookEvents(receiver, { retryForSeconds: 2 }), metrics: { onApiPort: true } });
    await endpointRegistered(service.db);
    userId = await createUser(service.baseUrl, 'Doomed');
    eventId = (await storedEvents(service.db)).at(-1)!.id;
    await waitUntil('the delivery to be marked failed', async () => (await rows()).some((row) => row.state === 'failed'), { timeoutMs: 60_000 });
  });
  after(async () => {
    await service.close();
    await receiver.close();
  });

  test('once the retry period is over the delivery is marked failed, after more than one attempt, with its last error', async () => {
    const [row] = await rows();
    assert.equal(row?.event_id, eventId);
    assert.equal(row?.state, 'failed');
    assert.ok(row!.attempts >= 2, `attempts: ${row!.attempts}`);
    assert.equal(row?.last_error, 'HTTP 500');
  });

  test('a warning names the endpoint, the event, the attempts and the last error, and never the secret', () => {
    const lines = service.logs.filter((line) => line.includes('giving up'));
    assert.equal(lines.length, 1);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(entry.level, 'warn');
    assert.equal(entry.msg, 'webhook delivery failed, giving up');
    assert.equal(entry.endpoint, receiver.url);
    assert.equal(entry.eventId, eventId);
    assert.equal(entry.lastError, 'HTTP 500');
    assert.equal(typeof entry.attempts, 'number');
    for (const line of service.logs) assert.ok(!line.includes(receiver.secret.slice(6)) && !line.includes(receiver.secret), 'the secret is never logged');
  });

  test('metrics count the failed attempts and the delivery given up', async () => {
    const families = await scrape(`${service.baseUrl}/metrics`);
    assert.equal(valueOf(families, 'webhook_deliveries_total', { result: 'gave_up' }), 1);
    assert.ok(valueOf(families, 'webhook_deliveries_total', { result: 'failed_attempt' }) >= 2);
    assert.equal(valueOf(families, 'webhook_deliveries_total', { result: 'delivered' }), 0);
    assert.equal(countOf(families, 'webhook_delivery_delay_seconds'), 0);
  });

  test('npm run webhooks -- failed lists it: endpoint, event id, type, user, attempts, queued time and last error', async () => {
    const listed = await tool('failed');
    assert.equal(listed.code, 0, listed.stderr);
    const [row] = await rows();
    assert.match(
      listed.stdout,
      new RegExp(`^${receiver.url.replace(/[.]/g, '\\.')}  event ${eventId}  user\\.created  user ${userId}  ${row!.attempts} attempts  queued \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} UTC  last error: HTTP 500$`, 'm'),
    );
    assert.match(listed.stdout, /^1 failed webhook delivery; send them again with: npm run webhooks -- resend --all$/m);
  });

  test("a failed delivery no longer holds back the user's later events", async () => {
    receiver.answer = () => 204;
    await renameUser(service.baseUrl, userId, 'Rescued');
    await waitUntil('the rename delivered', () => receiver.acknowledged().some((one) => one.event.data.id === userId && one.event.type === 'user.updated'), { timeoutMs: 30_000 });
    assert.deepEqual((await rows()).map((row) => row.state), ['failed']);
  });

  test('resend <event id> sets it pending again with its attempts reset, and it is delivered once the endpoint answers', async () => {
    receiver.answer = (delivery) => (delivery.event.id === eventId ? 'hold' : 204);
    const resent = await tool('resend', String(eventId));
    assert.equal(resent.code, 0, resent.stderr);
    assert.match(resent.stdout, /^1 failed webhook delivery is pending again, with a new retry period\.$/m);
    await waitUntil('the resent delivery in flight', () => receiver.holding === 1, { timeoutMs: 30_000 });
    assert.deepEqual((await rows()).map(({ state, attempts }) => ({ state, attempts })), [{ state: 'pending', attempts: 0 }]);
    receiver.release(204);
    await waitUntil('the resent delivery acknowledged', () => receiver.acknowledgedIds().includes(eventId), { timeoutMs: 30_000 });
    await waitUntil('its row removed', async () => (await rows()).length === 0, { timeoutMs: 30_000 });
    assert.equal((await tool('failed')).stdout.trim(), 'No failed webhook deliveries.');
  });

  test('resend of an event without a failed or pending delivery says so in one line and exits 1; resend --all with none resends nothing', async () => {
    const unknown = await tool('resend', '999999');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^No failed or pending delivery of event 999999\.$/m);
    assert.equal(unknown.stdout, '', 'one message');
    const all = await tool('resend', '--all');
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^0 failed webhook deliveries are pending again/m);
  });

  test('resend --all sets every failed delivery pending again', async () => {
    receiver.answer = () => 500;
    const id = await createUser(service.baseUrl, 'Doomed twice');
    await waitUntil('the new delivery failed', async () => (await rows()).some((row) => row.state === 'failed'), { timeoutMs: 60_000 });
    receiver.answer = () => 204;
    const all = await tool('resend', '--all');
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^1 failed webhook delivery is pending again/m);
    await waitUntil('it is delivered', () => receiver.acknowledged().some((one) => one.event.data.id === id), { timeoutMs: 30_000 });
  });

  test('a database without webhook tables is one line on stderr and exit 1', async () => {
    const plain = await startService('hooks_no_events');
    try {
      const none = await runScript(WEBHOOKS, dbEnv(plain.db.config), 30_000, { args: ['failed'] });
      assert.equal(none.code, 1);
      assert.match(none.stderr, /^webhooks failed: there are no webhook tables in this database/);
    } finally {
      await plain.close();
    }
  });
});
