import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { scrape, valueOf } from '../helpers/metrics.js';
import { waitUntil } from '../helpers/poll-until.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { startService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { createUser, storedEvents, webhookEnv, webhookEvents } from './support/webhooks.js';

const LEFT_BEHIND = 'webhook endpoint not in WEBHOOK_URLS has deliveries left: add it back, or npm run webhooks -- move or drop them';

/**
 * Two endpoints that fail (`moved`, whose URL carries a token in its query, and `dropped`) are
 * taken out of WEBHOOK_URLS while deliveries to them are pending, and `replacement` is configured
 * instead, at a service of two workers. What the operator is told at start, sees in /metrics and
 * `npm run webhooks -- pending`, and does with `move` and `drop`.
 */
describe('pending deliveries of endpoints taken out of WEBHOOK_URLS', () => {
  let db: TestDatabase;
  let moved: Receiver;
  let dropped: Receiver;
  let replacement: Receiver;
  let service: ChildService;
  let movedUrl: string;
  let users: number[];
  const tool = (...args: string[]) => runScript('src/commands/webhooks.ts', dbEnv(db.config), 30_000, { args });
  const rowsOf = (receiver: Receiver) =>
    db.query<Array<{ event_id: number; state: string }>>(
      'SELECT d.event_id, d.state FROM webhook_deliveries d JOIN webhook_endpoints w ON w.endpoint = d.endpoint WHERE w.url LIKE ? ORDER BY d.event_id',
      [`${receiver.url}%`],
    );

  before(async () => {
    db = await createTestDatabase('hooks_removed');
    moved = await Receiver.start();
    dropped = await Receiver.start(moved.secret);
    replacement = await Receiver.start(moved.secret);
    moved.answer = () => 500;
    dropped.answer = () => 500;
    movedUrl = `${moved.url}?token=s3cret-token`;
    const events = webhookEvents(moved);
    const first = await startService('hooks_removed_first', { db, events: { ...events, webhooks: { ...events.webhooks!, urls: [movedUrl, dropped.url] } } });
    try {
      await waitUntil('both endpoints registered', async () => (await db.query<unknown[]>('SELECT 1 FROM webhook_endpoints')).length === 2, { timeoutMs: 30_000 });
      users = [await createUser(first.baseUrl, 'Left one'), await createUser(first.baseUrl, 'Left two')];
      await waitUntil('two deliveries pending to each', async () => (await rowsOf(moved)).length === 2 && (await rowsOf(dropped)).length === 2, { timeoutMs: 30_000 });
    } finally {
      await first.close();
    }
    service = await spawnService(db.config, webhookEnv(replacement, { WORKERS: '2', METRICS: 'on' }));
  });
  after(async () => {
    service?.process.signal('SIGTERM');
    await service?.process.exited;
    for (const receiver of [moved, dropped, replacement]) await receiver?.close();
    await db?.drop();
  });

  /** The start-up warnings, as level, endpoint and counts, by endpoint. */
  const warnings = () =>
    service.process
      .entries()
      .filter((entry) => entry.msg === LEFT_BEHIND)
      .map(({ level, endpoint, pending, failed }) => ({ level, endpoint, pending, failed }))
      .sort((a, b) => String(a.endpoint).localeCompare(String(b.endpoint)));
  const expectedWarnings = () =>
    [
      { level: 'warn', endpoint: moved.url, pending: 2, failed: 0 },
      { level: 'warn', endpoint: dropped.url, pending: 2, failed: 0 },
    ].sort((a, b) => a.endpoint.localeCompare(b.endpoint));

  test('at start a warning names each endpoint left behind, without its query, and how many deliveries it has left', async () => {
    await waitUntil('both warnings', () => warnings().length >= 2, { timeoutMs: 30_000 });
    assert.deepEqual(warnings(), expectedWarnings());
    for (const line of service.process.lines) assert.doesNotMatch(line, /s3cret/);
  });

  test('/metrics of the two workers counts each endpoint\'s pending deliveries once, also those of endpoints no longer configured', async () => {
    const gauge = async (receiver: Receiver) => valueOf(await scrape(`${service.baseUrl}/metrics`), 'webhook_deliveries_pending', { endpoint: receiver.url });
    await waitUntil('the gauges read', async () => (await gauge(moved)) === 2, { timeoutMs: 30_000, intervalMs: 500 });
    const families = await scrape(`${service.baseUrl}/metrics`);
    assert.equal(valueOf(families, 'webhook_deliveries_pending', { endpoint: moved.url }), 2);
    assert.equal(valueOf(families, 'webhook_deliveries_pending', { endpoint: dropped.url }), 2);
    assert.equal(valueOf(families, 'webhook_deliveries_pending', { endpoint: replacement.url }), 0);
    assert.equal(valueOf(families, 'webhook_deliveries_failed', { endpoint: moved.url }), 0);
  });

  test('npm run webhooks -- pending lists them, and names each endpoint no running service delivers to, with what to do', async () => {
    const listed = await tool('pending');
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout.split('\n').filter((line) => line.startsWith(`${moved.url}  event `)).length, 2);
    assert.equal(listed.stdout.split('\n').filter((line) => line.startsWith(`${dropped.url}  event `)).length, 2);
    assert.match(listed.stdout, /^4 pending webhook deliveries\.$/m);
    for (const receiver of [moved, dropped]) {
      assert.match(listed.stdout, new RegExp(`^${receiver.url.replace(/[.]/g, '\\.')}: 2 pending deliveries and no running service delivers to it`, 'm'));
    }
    assert.doesNotMatch(listed.stdout, /s3cret/);
  });

  test('drop and move refuse an endpoint a running service delivers to, and an unknown one: one line, exit 1, nothing changed', async () => {
    const live = await tool('drop', replacement.url);
    assert.equal(live.code, 1);
    assert.equal(live.stderr.trim(), `webhooks failed: a running service delivers to ${replacement.url}: take it out of WEBHOOK_URLS (of every instance) and restart before you drop its deliveries`);
    const unknown = await tool('move', 'https://nowhere.example/hooks', replacement.url);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^webhooks failed: no webhook endpoint https:\/\/nowhere\.example\/hooks is known \(known: /);
    assert.equal((await rowsOf(moved)).length, 2);
  });

  test('move hands an endpoint\'s deliveries to the one that replaced it, which receives them in order, and forgets the first', async () => {
    const result = await tool('move', moved.url, replacement.url);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), `Moved 2 webhook deliveries from ${moved.url} to ${replacement.url}, pending there with a new retry period; ${moved.url} is forgotten.`);
    const events = (await storedEvents(db)).filter((event) => users.includes(event.user_id)).map((event) => event.id);
    await waitUntil('the moved deliveries acknowledged', () => events.every((id) => replacement.acknowledgedIds().includes(id)), { timeoutMs: 30_000 });
    assert.deepEqual(replacement.rejected, []);
    assert.deepEqual(await rowsOf(moved), []);
    assert.deepEqual(await db.query('SELECT 1 FROM webhook_endpoints WHERE url = ?', [movedUrl]), []);
  });

  test('the start-up warnings were said once for the instance, not once per worker', () => {
    // Both workers have long been delivering or waiting for the lease by now (the move was delivered).
    assert.deepEqual(warnings(), expectedWarnings());
  });

  test('drop forgets an endpoint and its deliveries, and says how many', async () => {
    const result = await tool('drop', dropped.url);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^Dropped ${dropped.url.replace(/[.]/g, '\\.')}: its 2 pending and 0 failed webhook deliveries, and the endpoint`));
    assert.deepEqual(await rowsOf(dropped), []);
    assert.deepEqual(await db.query('SELECT 1 FROM webhook_endpoints WHERE url = ?', [dropped.url]), []);
    assert.equal(dropped.acknowledged().length, 0);
    const listed = await tool('pending');
    assert.equal(listed.stdout.trim(), 'No pending webhook deliveries.');
  });
});
