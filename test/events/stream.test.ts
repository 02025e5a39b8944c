import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { eventIdOf, numberedEvents } from './support/numbered.js';
import { SseClient, type SseEvent } from './support/sse-client.js';

const EVENTS_ON = { retentionSeconds: 86_400, webhooks: undefined };
const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;

let created = 0;
/** Creates a user through the service; resolves with the id of its event. */
async function createUser(service: RunningService, requestId = `stream-create-${++created}`): Promise<number> {
  const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: `Streamed ${created}`, email: `streamed${created}@events.example` }, headers: { 'x-request-id': requestId } });
  assert.equal(res.status, 201);
  return eventIdOf(service.db, requestId);
}

/** A stream opens with the `retry:` EventSource waits before reconnecting: 1 s at least, spread over a few seconds. */
function assertOpening(frame: unknown): void {
  const retry = Number((frame as { retry?: string }).retry);
  assert.ok(Number.isInteger(retry) && retry >= 1000 && retry < 4000, `opening ${JSON.stringify(frame)}`);
}

/** A refusal as a client sees it, for comparing the stream's with the list's. */
async function refusal(service: RunningService, path: string, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await request(service.baseUrl, 'GET', path, { headers });
  return { status: res.status, type: res.headers.get('content-type'), body: res.text, challenge: res.headers.get('www-authenticate'), retry: res.headers.get('retry-after') };
}

describe('GET /api/users/events: the stream, its format and its resume point', () => {
  let db: TestDatabase;
  let service: RunningService;
  let fastapi: RunningService;
  before(async () => {
    db = await createTestDatabase('stream');
    service = await startService('stream', { db, events: EVENTS_ON, eventStream: { keepAliveMs: 200, pollMs: 50 } });
    fastapi = await startService('stream', { db, events: EVENTS_ON, apiCompat: 'fastapi' });
  });
  after(async () => {
    await Promise.all([service?.close(), fastapi?.close()]);
    await db?.drop();
  });

  test('200 text/event-stream, no-cache, X-Accel-Buffering: no, readable from any origin, and retry: first', async () => {
    const stream = await SseClient.open(service.baseUrl, STREAM);
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['content-type'], 'text/event-stream');
      assert.equal(stream.headers['cache-control'], 'no-cache');
      assert.equal(stream.headers['x-accel-buffering'], 'no');
      assert.equal(stream.headers['access-control-allow-origin'], '*');
      assert.match(String(stream.headers['x-request-id']), /./);
      assertOpening(await stream.next());
    } finally {
      stream.close();
    }
  });

  test('each event is `id: <id>`, `event: <type>` and `data: <event JSON>`, the JSON holding the stored user and the request id', async () => {
    const stream = await SseClient.open(service.baseUrl, STREAM);
    try {
      const id = await createUser(service, 'format-1');
      const event = await stream.nextEvent();
      const stored = (await numberedEvents(db)).find((event) => event.id === id)!;
      const [user] = await db.query<Array<{ id: number; name: string; email: string }>>('SELECT id, name, email FROM users WHERE id = ?', [stored.user_id]);
      assert.equal(event?.id, id);
      assert.equal(event.event, 'user.created');
      assert.deepEqual({ ...event.data, timestamp: undefined, data: { ...event.data.data, created_at: undefined } }, {
        id,
        type: 'user.created',
        timestamp: undefined,
        request_id: 'format-1',
        data: { id: user!.id, name: user!.name, email: user!.email, created_at: undefined },
      });
      assert.match(event.data.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(stream.raw.includes(`\n\nid: ${id}\nevent: user.created\ndata: {"id":${id},"type":"user.created",`), stream.raw);
    } finally {
      stream.close();
    }
  });

  test('the data of every event is the user exactly as GET answers it after that change, whatever its name and email hold (quotes, backslashes, emoji, other scripts), for creates and for concurrent PUTs sharing statements', async () => {
    const names = ['Zoë "Q" O\'Brien', 'back\\slash \\u0041', 'emoji 😀 and 漢字', 'right-to-left \u202Eevil', 'ʻOkina', '<b>&amp;</b>'];
    const stream = await SseClient.open(service.baseUrl, STREAM);
    try {
      const created = await Promise.all(names.map((name, i) => request(service.baseUrl, 'POST', '/api/users', { json: { name, email: `odd${i}@events.example` } })));
      assert.deepEqual(created.map((res) => res.status), names.map(() => 201));
      const ids = created.map((res) => Number(res.headers.get('location')!.split('/').pop()));
      const renamed = await Promise.all(ids.map((id, i) => request(service.baseUrl, 'PUT', `/api/users/${id}`, { json: { name: `${names[i]} ✓`, email: `ödd${i}@events.example` } })));
      assert.ok(renamed.every((res) => res.status === 200));
      const events: SseEvent[] = [];
      while (events.length < 2 * names.length) events.push((await stream.nextEvent())!);
      for (const id of ids) {
        const mine = events.filter((event) => event.data.data.id === id);
        assert.deepEqual(mine.map((event) => event.event), ['user.created', 'user.updated'], `user ${id}`);
        const now = (await request(service.baseUrl, 'GET', `/api/users/${id}`)).json;
        assert.deepEqual(mine[1]!.data.data, now, 'the update event holds the user as GET shows it');
        assert.equal(mine[0]!.data.data.created_at, (now as { created_at: string }).created_at);
      }
    } finally {
      stream.close();
    }
  });

  test('a creation time changed by hand after the service saw it is never put in an event: shared PUTs check the times they remember, and write the users one by one when one no longer matches', async () => {
    const created = await Promise.all([0, 1, 2].map((i) => request(service.baseUrl, 'POST', '/api/users', { json: { name: `Timed ${i}`, email: `timed${i}@events.example` } })));
    const ids = created.map((res) => Number(res.headers.get('location')!.split('/').pop()));
    for (const id of ids) assert.equal((await request(service.baseUrl, 'GET', `/api/users/${id}`)).status, 200);
    await db.query("UPDATE users SET created_at = '2001-02-03 04:05:06' WHERE id = ?", [ids[1]]);
    const stream = await SseClient.open(service.baseUrl, STREAM);
    try {
      const puts = await Promise.all(ids.flatMap((id, i) => [0, 1].map((k) => request(service.baseUrl, 'PUT', `/api/users/${id}`, { json: { name: `Retimed ${i}.${k}`, email: `timed${i}@events.example` } }))));
      assert.ok(puts.every((res) => res.status === 200));
      // The creates' events may be numbered after the stream opened (numbering follows a commit by up to 25 ms), and then come first.
      const events: SseEvent[] = [];
      while (events.length < puts.length) {
        const event = (await stream.nextEvent())!;
        if (event.data.type === 'user.updated') events.push(event);
      }
      for (const id of ids) {
        const stored = (await request(service.baseUrl, 'GET', `/api/users/${id}`)).json as { created_at: string };
        for (const event of events.filter((each) => each.data.data.id === id)) assert.equal(event.data.data.created_at, stored.created_at, `user ${id}`);
      }
      assert.ok(events.some((event) => event.data.data.created_at === '2001-02-03T04:05:06.000Z'));
    } finally {
      stream.close();
    }
  });

  test('without a resume point the stream starts after the last event: earlier events are not sent', async () => {
    const before = await createUser(service);
    const stream = await SseClient.open(service.baseUrl, STREAM);
    try {
      const later = await createUser(service);
      assert.ok(later > before);
      assert.equal((await stream.nextEvent())?.id, later);
    } finally {
      stream.close();
    }
  });

  test('Last-Event-ID resumes after that id; so does ?after=; the header wins when both are given', async () => {
    const [a, b, c] = [await createUser(service), await createUser(service), await createUser(service)];
    const firstTwo = async (path: string, headers: Record<string, string> = {}): Promise<number[]> => {
      const stream = await SseClient.open(service.baseUrl, path, headers);
      try {
        assert.equal(stream.status, 200);
        return [(await stream.nextEvent())!.id, (await stream.nextEvent())!.id];
      } finally {
        stream.close();
      }
    };
    assert.deepEqual(await firstTwo(STREAM, { 'last-event-id': String(a) }), [b, c]);
    assert.deepEqual(await firstTwo(`${STREAM}&after=${a}`), [b, c]);
    assert.deepEqual(await firstTwo(`${STREAM}&after=${c}`, { 'last-event-id': String(a) }), [b, c]);
    const [first] = await numberedEvents(db);
    const fromZero = await SseClient.open(service.baseUrl, STREAM, { 'last-event-id': '0' });
    try {
      assert.equal((await fromZero.nextEvent())?.id, first!.id, 'Last-Event-ID: 0 starts with the first event kept');
    } finally {
      fromZero.close();
    }
  });

  const malformed = ['', '01', '-1', '+1', '1.0', '1e3', '0x10', 'abc', '1 2', '9007199254740992'];
  for (const value of malformed) {
    test(`Last-Event-ID ${JSON.stringify(value)} -> 400 {"error": "Last-Event-ID must be a non-negative integer"}`, async () => {
      const res = await request(service.baseUrl, 'GET', STREAM, { headers: { 'last-event-id': value } });
      assert.deepEqual([res.status, res.json], [400, { error: 'Last-Event-ID must be a non-negative integer' }]);
    });
    test(`?after=${JSON.stringify(value)} -> 400 {"error": "after must be a non-negative integer"}`, async () => {
      const res = await request(service.baseUrl, 'GET', `${STREAM}&after=${encodeURIComponent(value)}`);
      assert.deepEqual([res.status, res.json], [400, { error: 'after must be a non-negative integer' }]);
    });
  }

  test('?after= given twice -> 400 {"error": "after must be given at most once"}', async () => {
    const res = await request(service.baseUrl, 'GET', `${STREAM}&after=1&after=2`);
    assert.deepEqual([res.status, res.json], [400, { error: 'after must be given at most once' }]);
  });

  test('pwd missing, wrong or repeated -> 401 {"error": "Invalid password"}, exactly as the list answers', async () => {
    for (const query of ['', '?pwd=wrong', `?pwd=${TEST_PASSWORD}&pwd=${TEST_PASSWORD}`, '?after=1']) {
      const list = await refusal(service, `/api/users${query}`);
      assert.deepEqual(await refusal(service, `/api/users/events${query}`), list, query);
      assert.equal((list as { status: number }).status, 401);
    }
  });

  test('a refused password is checked before the resume point: a wrong pwd with a malformed Last-Event-ID is 401, not 400', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/users/events?pwd=wrong', { headers: { 'last-event-id': 'x' } });
    assert.deepEqual([res.status, res.json], [401, { error: 'Invalid password' }]);
  });

  test('API_COMPAT=fastapi: a wrong pwd is refused with the list\'s 403 {"message": "Wrong password mate"}', async () => {
    const list = await refusal(fastapi, '/api/users?pwd=wrong');
    assert.deepEqual(await refusal(fastapi, '/api/users/events?pwd=wrong'), list);
    assert.equal((list as { status: number }).status, 403);
  });

  test('a quiet stream gets a `: keep-alive` comment every keep-alive interval', async () => {
    const stream = await SseClient.open(service.baseUrl, STREAM);
    try {
      assertOpening(await stream.next());
      assert.deepEqual(await stream.next(), { comment: 'keep-alive' });
      assert.deepEqual(await stream.next(), { comment: 'keep-alive' });
      assert.ok(stream.raw.endsWith('\n\n: keep-alive\n\n: keep-alive\n\n'), stream.raw);
    } finally {
      stream.close();
    }
  });

  test('HEAD answers the stream\'s head and ends', async () => {
    const res = await request(service.baseUrl, 'HEAD', STREAM);
    assert.deepEqual([res.status, res.headers.get('content-type'), res.text], [200, 'text/event-stream', '']);
  });
});

describe('a stream outlives the server\'s timeouts', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_timeouts', {
      events: EVENTS_ON,
      eventStream: { keepAliveMs: 250 },
      serverLimits: { requestTimeoutMs: 1000, headersTimeoutMs: 1000, keepAliveTimeoutMs: 500, timeoutCheckIntervalMs: 100 },
    });
  });
  after(() => service?.close());

  test('the request and keep-alive timeouts, which bound receiving a request, do not cut a stream that is being answered', async () => {
    const stream = await SseClient.open(service.baseUrl, STREAM);
    try {
      assertOpening(await stream.next());
      // Eight keep-alives span twice the request timeout: a cut stream would end before them.
      for (let i = 0; i < 8; i++) assert.deepEqual(await stream.next(), { comment: 'keep-alive' }, `keep-alive ${i + 1}`);
    } finally {
      stream.close();
    }
  });
});
