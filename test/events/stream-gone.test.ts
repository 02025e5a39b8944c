import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { eventIdOf } from './support/numbered.js';
import { SseClient } from './support/sse-client.js';

const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;

/** Creates a user through the service; resolves with the id of its event. */
async function createUser(service: RunningService, n: number): Promise<number> {
  const requestId = `gone-${n}`;
  const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: `Gone ${n}`, email: `gone${n}@events.example` }, headers: { 'x-request-id': requestId } });
  assert.equal(res.status, 201);
  return eventIdOf(service.db, requestId);
}

/** The first event a stream opened with `path` and `headers` receives. */
async function firstEventId(service: RunningService, path: string, headers: Record<string, string> = {}): Promise<number | undefined> {
  const stream = await SseClient.open(service.baseUrl, path, headers);
  try {
    assert.equal(stream.status, 200);
    return (await stream.nextEvent())?.id;
  } finally {
    stream.close();
  }
}

describe('the 410 of a resume point no longer kept names the oldest event kept and where to resume', () => {
  let service: RunningService;
  let ids: number[];
  before(async () => {
    service = await startService('stream_gone_names', { events: { retentionSeconds: 86_400, webhooks: undefined } });
    ids = [await createUser(service, 1), await createUser(service, 2), await createUser(service, 3)];
    // Pruning raises this mark before it deletes: a reader resuming before it has missed events.
    await service.db.query('INSERT INTO event_sequence (id, last_id) VALUES (2, ?) ON DUPLICATE KEY UPDATE last_id = VALUES(last_id)', [ids[1]]);
  });
  after(() => service?.close());

  test('resuming before the pruned mark (after= or Last-Event-ID) -> 410 naming the oldest event still kept and the after to resume from', async () => {
    const [first, second] = [ids[0]!, ids[1]!];
    const expected = {
      error: `Events after this id are no longer kept: the oldest event still kept is ${second + 1}; read the current state again, then resume from after=${second}`,
    };
    for (const [how, path, headers] of [
      ['?after=', `${STREAM}&after=${first}`, {}],
      ['Last-Event-ID', STREAM, { 'last-event-id': String(first) }],
    ] as const) {
      const res = await request(service.baseUrl, 'GET', path, { headers });
      assert.deepEqual([res.status, res.json], [410, expected], how);
    }
  });

  test('the after the 410 names resumes with the oldest event kept; so does after=0, never a 410', async () => {
    const [second, third] = [ids[1]!, ids[2]!];
    assert.equal(await firstEventId(service, `${STREAM}&after=${second}`), third);
    assert.equal(await firstEventId(service, `${STREAM}&after=0`), third);
    assert.equal(await firstEventId(service, STREAM, { 'last-event-id': '0' }), third);
  });
});
