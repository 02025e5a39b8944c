import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { SseClient } from './support/sse-client.js';

const EVENTS_ON = { retentionSeconds: 86_400, webhooks: undefined };
const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;

describe('the stream when the database fails', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_fail', { events: EVENTS_ON, eventStream: { pollMs: 50 } });
    // The sequence row exists once an event was recorded.
    assert.equal((await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'First', email: 'first@events.example' } })).status, 201);
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

  test('a database error while streaming ends the stream cleanly, and the reader resumes with Last-Event-ID', async () => {
    const stream = await SseClient.open(service.baseUrl, STREAM);
    assert.equal(stream.status, 200);
    const created = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Before', email: 'before@events.example' }, headers: { 'x-request-id': 'before-failure' } });
    assert.equal(created.status, 201);
    const seen = await stream.nextEvent();
    assert.equal(seen?.data.request_id, 'before-failure');
    await withoutSequence(async () => {
      assert.equal(await stream.ended, 'end');
      await waitUntil('the warning', () => service.logs.some((line) => line.includes('event stream ended by a database error')));
    });
    const resumed = await SseClient.open(service.baseUrl, STREAM, { 'last-event-id': String(seen.id - 1) });
    try {
      assert.equal(resumed.status, 200);
      assert.equal((await resumed.nextEvent())?.id, seen.id);
    } finally {
      resumed.close();
    }
  });
});

describe('the stream when the service closes', () => {
  test('app.close ends open streams at once: their readers see the end, and shutdown does not wait for the drain limit', { timeout: 60_000 }, async () => {
    const service = await startService('stream_close', { events: EVENTS_ON });
    const streams = await Promise.all([SseClient.open(service.baseUrl, STREAM), SseClient.open(service.baseUrl, STREAM)]);
    assert.deepEqual(streams.map((stream) => stream.status), [200, 200]);
    await Promise.all(streams.map((stream) => stream.next()));
    try {
      // A drain limit beyond the test's timeout: only streams that end on their own let close() resolve in time.
      await service.app.close(120_000);
      assert.deepEqual(await Promise.all(streams.map((stream) => stream.ended)), ['end', 'end']);
    } finally {
      await service.db.drop();
    }
  });
});
