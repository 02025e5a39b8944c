import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { SseClient } from './support/sse-client.js';
import { allNumbered } from './support/numbered.js';

const EVENTS_ON = { retentionSeconds: 86_400, webhooks: undefined };
const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;

describe('the stream when the database fails', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_fail', { events: EVENTS_ON, eventStream: { pollMs: 50 } });
    // The sequence row exists once an event was recorded.
    assert.equal((await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'First', email: 'first@events.example' } })).status, 201);
    await allNumbered(service.db);
  });
  after(() => service?.close());

  /** Runs `during` while the outbox's sequence table is out of reach, then puts it back. */
  async function withoutSequence(during: () => Promise<void>): Promise<void> {
    await service.db.query('RENAME TABLE event_sequence TO event_sequence_away');
    try {
      await during();
    } finally {
      await service.db.query('RENAME TABLE event_sequence_away TO event_sequence');
    }
  }

  test('a storage failure before the stream starts -> 500 {"error": "Database error"}, as elsewhere', async () => {
    await withoutSequence(async () => {
      const res = await request(service.baseUrl, 'GET', STREAM);
      assert.deepEqual([res.status, res.json, res.headers.get('content-type')], [500, { error: 'Database error' }, 'application/json; charset=utf-8']);
    });
  });

  test('a database error while streaming ends nothing: the stream waits, and once the outbox reads again it gets what came next', async () => {
    const stream = await SseClient.open(service.baseUrl, STREAM);
    assert.equal(stream.status, 200);
    const created = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Before', email: 'before@events.example' }, headers: { 'x-request-id': 'before-failure' } });
    assert.equal(created.status, 201);
    const seen = await stream.nextEvent();
    assert.equal(seen?.data.request_id, 'before-failure');
    await service.db.query('RENAME TABLE event_batches TO event_batches_away');
    try {
      await waitUntil('the warning', () => service.logs.some((line) => line.includes('reading new events failed; open streams wait for it')));
    } finally {
      await service.db.query('RENAME TABLE event_batches_away TO event_batches');
    }
    const later = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'After', email: 'after@events.example' }, headers: { 'x-request-id': 'after-failure' } });
    assert.equal(later.status, 201);
    try {
      const next = await stream.nextEvent();
      assert.deepEqual([next?.id, next?.data.request_id], [seen.id + 1, 'after-failure']);
      await waitUntil('the recovery', () => service.logs.some((line) => line.includes('reading new events recovered')));
      assert.equal(service.logs.filter((line) => line.includes('reading new events failed')).length, 1, 'one warning however many looks failed');
    } finally {
      stream.close();
    }
  });
});

describe('the stream when the service closes', () => {
  test('app.close ends open streams at once, each told to come back after a retry: spread over seconds, and shutdown does not wait for the drain limit', { timeout: 60_000 }, async () => {
    const service = await startService('stream_close', { events: EVENTS_ON });
    const streams = await Promise.all(Array.from({ length: 50 }, () => SseClient.open(service.baseUrl, STREAM)));
    assert.ok(streams.every((stream) => stream.status === 200));
    await Promise.all(streams.map((stream) => stream.next()));
    try {
      // A drain limit beyond the test's timeout: only streams that end on their own let close() resolve in time.
      await service.app.close(120_000);
      assert.ok((await Promise.all(streams.map((stream) => stream.ended))).every((how) => how === 'end'));
      const comeBack = await Promise.all(streams.map(async (stream) => Number((await stream.next())?.retry)));
      assert.ok(comeBack.every((ms) => ms >= 1000), `every stream told to wait at least a second: ${comeBack}`);
      assert.ok(Math.max(...comeBack) - Math.min(...comeBack) >= 1000, `not all at once: ${comeBack}`);
    } finally {
      await service.db.drop();
    }
  });
});
