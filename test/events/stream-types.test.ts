import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { eventIdOf } from './support/numbered.js';
import { SseClient } from './support/sse-client.js';

const EVENTS_ON = { retentionSeconds: 86_400, webhooks: undefined };
const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;

let writes = 0;
/** One change through the service; resolves with the id of its event. */
async function change(service: RunningService, method: string, path: string, json?: unknown): Promise<number> {
  const requestId = `types-${++writes}`;
  const res = await request(service.baseUrl, method, path, { headers: { 'x-request-id': requestId }, ...(json === undefined ? {} : { json }) });
  assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${res.status} ${res.text}`);
  return eventIdOf(service.db, requestId);
}

/** A user made through the service: its id and the id of its user.created event. */
async function created(service: RunningService): Promise<{ user: number; event: number }> {
  const n = ++writes;
  const requestId = `types-create-${n}`;
  const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: `Typed ${n}`, email: `typed${n}@events.example` }, headers: { 'x-request-id': requestId } });
  assert.equal(res.status, 201);
  return { user: Number(res.headers.get('location')!.split('/').pop()), event: await eventIdOf(service.db, requestId) };
}

const updated = (service: RunningService, user: number): Promise<number> => change(service, 'PATCH', `/api/users/${user}`, { name: `Renamed ${++writes}` });
const deleted = (service: RunningService, user: number): Promise<number> => change(service, 'DELETE', `/api/users/${user}`);

/** What a reader took from a stream: the events (id and type) in order, and its resume point as EventSource keeps it (the last `id:` received). */
interface Taken {
  events: Array<[id: number, type: string]>;
  lastEventId: number | undefined;
}

/** How long a reader waits for an id before it hangs up and fails, rather than waiting for ever. */
const GIVE_UP_MS = 15_000;

/**
 * Reads frames until one carries an id at or past `through`; every `id:` moves the resume point,
 * as in EventSource. A stream that never gets there is hung up on after GIVE_UP_MS, and the test fails.
 */
async function takeThrough(stream: SseClient, through: number): Promise<Taken> {
  const taken: Taken = { events: [], lastEventId: undefined };
  const giveUp = setTimeout(() => stream.close(), GIVE_UP_MS);
  try {
    for (;;) {
      const frame = await stream.next();
      assert.ok(frame, `no id ${through} on the stream (last id received: ${taken.lastEventId}, events: ${JSON.stringify(taken.events)})`);
      if (frame.id === undefined) continue;
      taken.lastEventId = Number(frame.id);
      if (frame.event !== undefined) taken.events.push([Number(frame.id), frame.event]);
      if (taken.lastEventId >= through) return taken;
    }
  } finally {
    clearTimeout(giveUp);
  }
}

describe('?types=: a stream sends only the event types asked for, and resuming with it misses none of them', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_types', { events: EVENTS_ON, eventStream: { pollMs: 50 } });
  });
  after(() => service?.close());

  test('live: types=user.deleted is sent the deletions only, and an `id:` alone after the events it is not sent', async () => {
    const stream = await SseClient.open(service.baseUrl, `${STREAM}&types=user.deleted`);
    try {
      assert.equal(stream.status, 200);
      const a = await created(service);
      const renamed = await updated(service, a.user);
      const gone = await deleted(service, a.user);
      const b = await created(service);
      const taken = await takeThrough(stream, b.event);
      assert.deepEqual(taken.events, [[gone, 'user.deleted']]);
      assert.ok(renamed < gone);
      assert.equal(taken.lastEventId, b.event, 'the resume point moved past the creation it was not sent');
      assert.doesNotMatch(stream.raw, /event: user\.(created|updated)/);
    } finally {
      stream.close();
    }
  });

  test('catch-up: types=user.created,user.deleted resuming from after= is sent those types in id order, not the updates between them', async () => {
    const start = await created(service);
    const x = await created(service);
    const renamed = await updated(service, x.user);
    const gone = await deleted(service, x.user);
    const y = await created(service);
    const last = await updated(service, y.user);
    const stream = await SseClient.open(service.baseUrl, `${STREAM}&types=user.created,user.deleted&after=${start.event}`);
    try {
      const taken = await takeThrough(stream, last);
      assert.deepEqual(taken.events, [
        [x.event, 'user.created'],
        [gone, 'user.deleted'],
        [y.event, 'user.created'],
      ]);
      assert.ok(!taken.events.some(([id]) => id === renamed || id === last));
      assert.equal(taken.lastEventId, last, 'an `id:` alone after the last update it was not sent');
    } finally {
      stream.close();
    }
  });

  test('types naming all three is the stream without a filter: every event, and no `id:` alone', async () => {
    const start = await created(service);
    const x = await created(service);
    const renamed = await updated(service, x.user);
    const stream = await SseClient.open(service.baseUrl, `${STREAM}&types=user.updated,user.created,user.deleted&after=${start.event}`);
    try {
      const taken = await takeThrough(stream, renamed);
      assert.deepEqual(taken.events, [
        [x.event, 'user.created'],
        [renamed, 'user.updated'],
      ]);
      assert.doesNotMatch(stream.raw, /\n\nid: \d+\n\n/);
    } finally {
      stream.close();
    }
  });

  test('resuming with the filter from the last `id:` received misses none of its events written while away, and is sent none of the others', async () => {
    const stream = await SseClient.open(service.baseUrl, `${STREAM}&types=user.updated`);
    const x = await created(service);
    const first = await updated(service, x.user);
    const y = await created(service);
    const before = await takeThrough(stream, y.event);
    stream.close();
    assert.deepEqual(before.events, [[first, 'user.updated']]);
    // Written while the reader is away: updates among creations and deletions.
    const second = await updated(service, x.user);
    const z = await created(service);
    const third = await updated(service, y.user);
    const last = await deleted(service, z.user);
    const resumed = await SseClient.open(service.baseUrl, `${STREAM}&types=user.updated`, { 'last-event-id': String(before.lastEventId) });
    try {
      assert.equal(resumed.status, 200);
      const after = await takeThrough(resumed, last);
      assert.deepEqual(after.events, [
        [second, 'user.updated'],
        [third, 'user.updated'],
      ]);
    } finally {
      resumed.close();
    }
  });

  test('an unknown type, an empty list or item, a type in capitals, or types twice -> 400 naming types', async () => {
    const invalid = { error: 'types must be a comma-separated list of event types: user.created, user.updated, user.deleted' };
    for (const [query, body] of [
      ['types=user.removed', invalid],
      ['types=', invalid],
      ['types=user.created,', invalid],
      ['types=user.created,,user.deleted', invalid],
      ['types=user.created%20', invalid],
      ['types=USER.CREATED', invalid],
      ['types=user.created&types=user.deleted', { error: 'types must be given at most once' }],
    ] as const) {
      const res = await request(service.baseUrl, 'GET', `${STREAM}&${query}`);
      assert.deepEqual([res.status, res.json, res.headers.get('content-type')], [400, body, 'application/json; charset=utf-8'], query);
    }
  });

  test('a query parameter the stream does not take -> 400 naming it (cut to 40 characters), with those it takes', async () => {
    const takes = 'the stream takes pwd, after, types';
    const long = 'x'.repeat(60);
    for (const [query, name] of [
      ['type=user.created', 'type'],
      ['Types=user.created', 'Types'],
      ['after=1&limit=5', 'limit'],
      ['_=1714000000', '_'],
      [`${long}=1`, `${'x'.repeat(40)}…`],
    ] as const) {
      const res = await request(service.baseUrl, 'GET', `${STREAM}&${query}`);
      assert.deepEqual([res.status, res.json], [400, { error: `unknown query parameter "${name}": ${takes}` }], query);
    }
  });

  test('the password is checked first: a wrong pwd with an unknown parameter or a bad types is 401, as before', async () => {
    for (const query of ['pwd=wrong&foo=1', 'pwd=wrong&types=nope', 'foo=1']) {
      const res = await request(service.baseUrl, 'GET', `/api/users/events?${query}`);
      assert.deepEqual([res.status, res.json], [401, { error: 'Invalid password' }], query);
    }
  });
});

describe('?types= on a stream catching up from the outbox (a window of one event, pages of two)', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_types_pages', { events: EVENTS_ON, eventStream: { pollMs: 50, windowEvents: 1, pageSize: 2 } });
  });
  after(() => service?.close());

  test('pages read from the outbox are filtered as the window is: the types asked for in order, an `id:` alone after the others', async () => {
    const start = await created(service);
    const users = [await created(service), await created(service), await created(service)];
    const renames = [await updated(service, users[0]!.user), await updated(service, users[1]!.user)];
    const gone = await deleted(service, users[2]!.user);
    const last = await created(service);
    const stream = await SseClient.open(service.baseUrl, `${STREAM}&types=user.updated&after=${start.event}`);
    try {
      const taken = await takeThrough(stream, last.event);
      assert.deepEqual(taken.events, renames.map((id) => [id, 'user.updated']));
      assert.ok(gone < last.event);
      assert.equal(taken.lastEventId, last.event);
    } finally {
      stream.close();
    }
  });

  test('a filtered reader whose last `id:` is past events since pruned resumes without a 410; from its last event it would get one', async () => {
    const stream = await SseClient.open(service.baseUrl, `${STREAM}&types=user.deleted`);
    const doomed = await created(service);
    const gone = await deleted(service, doomed.user);
    const kept = await created(service);
    const newest = await created(service);
    const taken = await takeThrough(stream, newest.event);
    stream.close();
    assert.deepEqual(taken.events, [[gone, 'user.deleted']]);
    assert.equal(taken.lastEventId, newest.event);
    // Pruning raises this mark before it deletes: every event through the newest counts as pruned.
    await service.db.query('INSERT INTO event_sequence (id, last_id) VALUES (2, ?) ON DUPLICATE KEY UPDATE last_id = VALUES(last_id)', [newest.event]);

    const fromLastEvent = await request(service.baseUrl, 'GET', `${STREAM}&types=user.deleted`, { headers: { 'last-event-id': String(gone) } });
    assert.equal(fromLastEvent.status, 410);
    assert.match((fromLastEvent.json as { error: string }).error, new RegExp(`resume from after=${newest.event}$`));

    const resumed = await SseClient.open(service.baseUrl, `${STREAM}&types=user.deleted`, { 'last-event-id': String(taken.lastEventId) });
    try {
      assert.equal(resumed.status, 200);
      const goneLater = await deleted(service, kept.user);
      assert.deepEqual((await takeThrough(resumed, goneLater)).events, [[goneLater, 'user.deleted']]);
    } finally {
      resumed.close();
    }
  });
});
