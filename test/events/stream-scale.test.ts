import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, testServer, throughPort, type TestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { family, scrape, valueOf } from '../helpers/metrics.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { allNumbered, eventIdOf } from './support/numbered.js';
import { SseClient } from './support/sse-client.js';

/**
 * Many streams on one process, over real HTTP against the real database: one reader of the outbox
 * feeds them all, a resume within the recent events costs no query, and a database outage ends
 * none of them. (The benchmark's `--mode streams` takes the same to 10 000 streams.)
 */

const EVENTS_ON = { retentionSeconds: 86_400, webhooks: undefined };
const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;

/** Opens `count` streams, a few dozen at a time. */
async function openStreams(baseUrl: string, count: number, headers: Record<string, string> = {}): Promise<SseClient[]> {
  const streams: SseClient[] = [];
  while (streams.length < count) {
    streams.push(...(await Promise.all(Array.from({ length: Math.min(50, count - streams.length) }, () => SseClient.open(baseUrl, STREAM, headers)))));
  }
  assert.ok(streams.every((stream) => stream.status === 200));
  return streams;
}

/** The ids of the next `count` events each stream receives. */
function nextIds(streams: SseClient[], count: number): Promise<number[][]> {
  return Promise.all(
    streams.map(async (stream) => {
      const ids: number[] = [];
      while (ids.length < count) ids.push((await stream.nextEvent())!.id);
      return ids;
    }),
  );
}

let created = 0;
async function createUser(baseUrl: string): Promise<void> {
  const n = ++created;
  const res = await request(baseUrl, 'POST', '/api/users', { json: { name: `Scale ${n}`, email: `scale${n}@events.example` }, headers: { 'x-request-id': `scale-${n}` } });
  assert.equal(res.status, 201);
}

describe('one reader of the outbox per process, however many streams', () => {
  let service: RunningService;
  before(async () => {
    // Looks for new events only when this process numbered some: every read below is one the streams caused.
    service = await startService('stream_scale', { events: EVENTS_ON, metrics: { onApiPort: true }, eventStream: { pollMs: 600_000 } });
  });
  after(() => service?.close());

  const reads = async (): Promise<{ tail: number; catchUp: number }> => {
    const families = await scrape(`${service.baseUrl}/metrics`);
    family(families, 'event_stream_reads_total');
    return { tail: valueOf(families, 'event_stream_reads_total', { reader: 'tail' }), catchUp: valueOf(families, 'event_stream_reads_total', { reader: 'catch_up' }) };
  };

  test('500 open streams all receive each new event, in one order, for a few reads of the outbox per event, not one per stream', { timeout: 120_000 }, async () => {
    const streams = await openStreams(service.baseUrl, 500);
    try {
      const before = await reads();
      for (let i = 0; i < 10; i++) await createUser(service.baseUrl);
      const received = await nextIds(streams, 10);
      assert.ok(received.every((ids) => JSON.stringify(ids) === JSON.stringify(received[0])), 'every stream, the same events in the same order');
      assert.deepEqual(received[0], Array.from({ length: 10 }, (_, i) => received[0]![0]! + i), 'ids without a hole');
      const spent = await reads();
      assert.ok(spent.tail - before.tail <= 30, `${spent.tail - before.tail} reads by the tail for 10 events and 500 streams`);
      assert.equal(spent.catchUp - before.catchUp, 0, 'no stream read the outbox itself');
      assert.equal(valueOf(await scrape(`${service.baseUrl}/metrics`), 'event_streams_open'), 500);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  test('200 streams resuming within the recent events (Last-Event-ID) are served from memory: no read of the outbox', { timeout: 120_000 }, async () => {
    const anchor = await openStreams(service.baseUrl, 1);
    try {
      for (let i = 0; i < 5; i++) await createUser(service.baseUrl);
      await nextIds(anchor, 5);
      const resumeFrom = (await eventIdOf(service.db, `scale-${created - 3}`)) - 1;
      const before = await reads();
      const resumed = await openStreams(service.baseUrl, 200, { 'last-event-id': String(resumeFrom) });
      try {
        const received = await nextIds(resumed, 4);
        assert.ok(received.every((ids) => JSON.stringify(ids) === JSON.stringify([1, 2, 3, 4].map((k) => resumeFrom + k))));
        assert.deepEqual(await reads(), before, 'the resumes and what they were sent cost no read');
      } finally {
        for (const stream of resumed) stream.close();
      }
    } finally {
      anchor[0]!.close();
    }
  });
});

describe('no storm: the database away under a thousand open streams', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let service: RunningService;
  before(async () => {
    db = await createTestDatabase('stream_outage');
    proxy = await startTcpProxy(testServer);
    service = await startService('stream_outage', { db: { ...db, config: throughPort(db.config, proxy.port) }, events: EVENTS_ON, eventStream: { pollMs: 100 } });
  });
  after(async () => {
    await service?.close();
    await proxy?.close();
    await db?.drop();
  });

  test('no stream ends while the database is away, the API answers as it always does meanwhile, and once it is back every stream gets the next events without a gap', { timeout: 180_000 }, async () => {
    const streams = await openStreams(service.baseUrl, 1000);
    let ended = 0;
    for (const stream of streams) void stream.ended.then(() => ended++);
    try {
      await createUser(service.baseUrl);
      const [first] = (await nextIds(streams, 1))[0]!;

      await proxy.setMode('refuse');
      await waitUntil('the stream reader to notice', () => service.logs.some((line) => line.includes('reading new events failed; open streams wait for it')));
      const meanwhile = await request(service.baseUrl, 'GET', '/api/users/1');
      assert.ok([500, 503].includes(meanwhile.status), `the API while the database is away: ${meanwhile.status}`);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.equal(ended, 0, 'no stream ended while the database was away');
      await proxy.setMode('forward');

      await waitUntil('the service to write again', async () => (await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Back', email: 'back@events.example' } })).status === 201);
      for (let i = 0; i < 3; i++) await createUser(service.baseUrl);
      await allNumbered(db);
      const received = await nextIds(streams, 4);
      assert.ok(received.every((ids) => JSON.stringify(ids) === JSON.stringify([1, 2, 3, 4].map((k) => first! + k))), 'every stream: the next four events, no gap');
      assert.equal(ended, 0);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});
