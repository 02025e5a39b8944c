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

/** The outbox reads the service's streams made, from its metrics. */
async function reads(service: RunningService): Promise<{ tail: number; catchUp: number }> {
  const families = await scrape(`${service.baseUrl}/metrics`);
  family(families, 'event_stream_reads_total');
  return { tail: valueOf(families, 'event_stream_reads_total', { reader: 'tail' }), catchUp: valueOf(families, 'event_stream_reads_total', { reader: 'catch_up' }) };
}

let created = 0;
async function createUser(baseUrl: string): Promise<void> {
  const n = ++created;
  const res = await request(baseUrl, 'POST', '/api/users', { json: { name: `Scale ${n}`, email: `scale${n}@events.example` }, headers: { 'x-request-id': `scale-${n}` } });
  assert.equal(res.status, 201);
}

describe('one reader of the outbox per process, however many streams', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let service: RunningService;
  before(async () => {
    db = await createTestDatabase('stream_scale');
    // The proxy counts the statements the service sends the database.
    proxy = await startTcpProxy(testServer);
    service = await startService('stream_scale', { db: { ...db, config: throughPort(db.config, proxy.port) }, events: EVENTS_ON, metrics: { onApiPort: true } });
  });
  after(async () => {
    await service?.close();
    await proxy?.close();
    await db?.drop();
  });

  /** Statements the database received per event while `events` users are created one after another. */
  const statementsPerEvent = async (events: number): Promise<number> => {
    const before = proxy.commands;
    for (let i = 0; i < events; i++) await createUser(service.baseUrl);
    await allNumbered(db);
    return (proxy.commands - before) / events;
  };


  test('a new event costs the database as many statements with 500 open streams as with one, and all 500 receive it, in one order', { timeout: 120_000 }, async () => {
    const one = await openStreams(service.baseUrl, 1);
    const alone = await statementsPerEvent(10);
    await nextIds(one, 10);
    one[0]!.close();
    const streams = await openStreams(service.baseUrl, 500);
    try {
      const many = await statementsPerEvent(10);
      assert.ok(many <= alone * 1.5 + 2, `${many} statements per event with 500 streams, ${alone} with one`);
      const received = await nextIds(streams, 10);
      assert.ok(received.every((ids) => JSON.stringify(ids) === JSON.stringify(received[0])), 'every stream, the same events in the same order');
      assert.deepEqual(received[0], Array.from({ length: 10 }, (_, i) => received[0]![0]! + i), 'ids without a hole');
      assert.equal((await reads(service)).catchUp, 0, 'no stream read the outbox itself');
      assert.equal(valueOf(await scrape(`${service.baseUrl}/metrics`), 'event_streams_open'), 500);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

});

describe('resuming within the recent events', () => {
  let service: RunningService;
  before(async () => {
    // Looks for new events only when this process numbered some: every read below is one the streams caused.
    service = await startService('stream_resume', { events: EVENTS_ON, metrics: { onApiPort: true }, eventStream: { pollMs: 600_000 } });
  });
  after(() => service?.close());

  test('200 streams resuming within the recent events (Last-Event-ID) are served from memory: no read of the outbox', { timeout: 120_000 }, async () => {
    const anchor = await openStreams(service.baseUrl, 1);
    try {
      for (let i = 0; i < 5; i++) await createUser(service.baseUrl);
      await nextIds(anchor, 5);
      const resumeFrom = (await eventIdOf(service.db, `scale-${created - 3}`)) - 1;
      const before = await reads(service);
      const resumed = await openStreams(service.baseUrl, 200, { 'last-event-id': String(resumeFrom) });
      try {
        const received = await nextIds(resumed, 4);
        assert.ok(received.every((ids) => JSON.stringify(ids) === JSON.stringify([1, 2, 3, 4].map((k) => resumeFrom + k))));
        assert.deepEqual(await reads(service), before, 'the resumes and what they were sent cost no read');
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
      await waitUntil('the API to answer that the database is away', async () => [500, 503].includes((await request(service.baseUrl, 'GET', '/api/users/1')).status));
      // Many looks for new events fail meanwhile (one every 100 ms at first, then less often).
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.equal(ended, 0, 'no stream ended while the database was away');
      assert.equal(service.logs.filter((line) => line.includes('reading new events failed; open streams wait for it')).length, 1, 'one warning');
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
