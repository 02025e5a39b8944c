import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { eventIdOf, numberedEvents } from './support/numbered.js';
import { SseClient } from './support/sse-client.js';

const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;
/** The 410 once every event through `prunedThrough` is pruned and none after it exists yet. */
const goneNoneKept = (prunedThrough: number) => ({
  error: `Events after this id are no longer kept, and no event is kept now: read the current state again, then resume from after=${prunedThrough}`,
});

describe('EVENTS_RETENTION: resuming from before what was pruned is 410, so the reader knows to read the state again', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_gone', { events: { retentionSeconds: 2, webhooks: undefined }, eventsPruneIntervalMs: 200, eventStream: { pollMs: 50 } });
  });
  after(() => service?.close());

  const prunedThrough = async (): Promise<number> => {
    const [row] = await service.db.query<Array<{ last_id: number }>>('SELECT last_id FROM event_sequence WHERE id = 2');
    return row?.last_id ?? 0;
  };

  test('events older than the retention are pruned; a reader resuming before them gets 410 {"error": …} saying where to resume; one resuming from the newest id, or from 0 (the oldest kept), streams on', async () => {
    const ids: number[] = [];
    for (const i of [1, 2, 3]) {
      assert.equal((await request(service.baseUrl, 'POST', '/api/users', { json: { name: `Old ${i}`, email: `old${i}@events.example` }, headers: { 'x-request-id': `old-${i}` } })).status, 201);
      ids.push(await eventIdOf(service.db, `old-${i}`));
    }
    const newest = ids[2]!;
    await waitUntil('the three events to be pruned', async () => (await prunedThrough()) >= newest);
    assert.deepEqual((await numberedEvents(service.db)).filter((event) => event.id <= newest), []);

    for (const [how, path, headers] of [
      ['Last-Event-ID of an older event', STREAM, { 'last-event-id': String(ids[0]) }],
      ['?after= of the event before the newest', `${STREAM}&after=${ids[1]}`, {}],
    ] as const) {
      const res = await request(service.baseUrl, 'GET', path, { headers });
      assert.deepEqual([res.status, res.json, res.headers.get('content-type')], [410, goneNoneKept(newest), 'application/json; charset=utf-8'], how);
    }

    // 0 asks for the oldest event kept: never a 410, whatever was pruned.
    const streams = await Promise.all([
      SseClient.open(service.baseUrl, STREAM, { 'last-event-id': String(newest) }),
      SseClient.open(service.baseUrl, STREAM, { 'last-event-id': '0' }),
      SseClient.open(service.baseUrl, `${STREAM}&after=0`),
    ]);
    try {
      assert.deepEqual(streams.map((stream) => stream.status), [200, 200, 200]);
      assert.equal((await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'New', email: 'new@events.example' }, headers: { 'x-request-id': 'after-pruning' } })).status, 201);
      for (const stream of streams) {
        const event = await stream.nextEvent();
        assert.deepEqual([event?.id, event?.data.request_id], [newest + 1, 'after-pruning']);
      }
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});
