import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { request, type ApiResponse } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { SseClient, type SseEvent } from './support/sse-client.js';
import { numberedEvents } from './support/numbered.js';

/**
 * The stream's promise under load: writers on two instances of one database, and readers that
 * hang up every few events and resume, see every acknowledged change exactly once, in id order,
 * and nothing of a refused one.
 */

const EVENTS_ON = { retentionSeconds: 86_400, webhooks: undefined };
/**
 * The proof is about order, not speed: on a busy machine (the whole suite, four files at a time)
 * writers queued behind the event ids' lock can outlast the default 4 s budget and answer 500,
 * which would leave the test unsure what a user holds.
 */
const PATIENT = { ...defaultTuning, operationTimeoutMs: 30_000 };
const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;
const WORKERS = 2;
const ROUNDS = 3;
const CREATES_PER_INSTANCE = 20;

type EventType = 'user.created' | 'user.updated' | 'user.deleted';

/** The event an acknowledged write must have. */
interface Expected {
  type: EventType;
  user_id: number;
  name?: string;
  email?: string;
}

interface Write {
  requestId: string;
  method: string;
  path: string;
  status: number;
  /** Undefined for a refused write: it must have no event. */
  expected: Expected | undefined;
}

interface OutboxRow {
  id: number;
  type: EventType;
  user_id: number;
  name: string | null;
  email: string | null;
  request_id: string | null;
  occurred_at: string;
}

interface UserState {
  id: number;
  name: string;
  email: string;
}

describe('two instances, concurrent writers, readers that keep hanging up and resuming', () => {
  let db: TestDatabase;
  let a: RunningService;
  let b: RunningService;
  const writes: Write[] = [];
  let sent = 0;

  before(async () => {
    db = await createTestDatabase('stream_order');
    a = await startService('stream_order', { db, events: EVENTS_ON, eventStream: { pollMs: 50 }, poolTuning: PATIENT });
    b = await startService('stream_order', { db, events: EVENTS_ON, eventStream: { pollMs: 50 }, poolTuning: PATIENT });
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await db?.drop();
  });

  /** One write with a request id of its own, recorded with the event it must (or must not) have. */
  async function write(service: RunningService, method: string, path: string, options: { json?: unknown; ifMatch?: string }, expect: (res: ApiResponse) => Expected): Promise<ApiResponse> {
    const requestId = `order-${++sent}`;
    const headers: Record<string, string> = { 'x-request-id': requestId };
    if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
    const res = await request(service.baseUrl, method, path, { ...(options.json === undefined ? {} : { json: options.json }), headers });
    writes.push({ requestId, method, path, status: res.status, expected: res.status >= 200 && res.status < 300 ? expect(res) : undefined });
    return res;
  }

  const etagOf = async (service: RunningService, id: number): Promise<string> => (await request(service.baseUrl, 'GET', `/api/users/${id}`)).headers.get('etag')!;

  /** Creates, PUTs, PATCHes, conditional writes and deletes, many at once, through both instances. */
  async function round(worker: number, r: number): Promise<void> {
    const tag = `w${worker}r${r}`;
    const via = (i: number): RunningService => (i % 2 === 0 ? a : b);
    const users: UserState[] = [];

    await Promise.all([
      ...Array.from({ length: 2 * CREATES_PER_INSTANCE }, async (_, i) => {
        const user = { name: `Made ${tag} ${i}`, email: `made.${tag}.${i}@order.example` };
        const res = await write(via(i), 'POST', '/api/users', { json: user }, (res) => {
          const id = Number(res.headers.get('location')!.split('/').pop());
          users.push({ id, ...user });
          return { type: 'user.created', user_id: id, ...user };
        });
        assert.equal(res.status, 201);
      }),
      write(a, 'POST', '/api/users', { json: { name: `No email ${tag}` } }, () => assert.fail('a create without email succeeded')),
      write(b, 'POST', '/api/users', { json: { name: '', email: `empty.${tag}@order.example` } }, () => assert.fail('a create with an empty name succeeded')),
    ]);

    await Promise.all([
      ...users.map(async (user, i) => {
        const next = { name: `Put ${tag} ${i}`, email: `put.${tag}.${i}@order.example` };
        const res = await write(via(i + 1), 'PUT', `/api/users/${user.id}`, { json: next }, () => ({ type: 'user.updated', user_id: user.id, ...next }));
        assert.equal(res.status, 200);
        Object.assign(user, next);
      }),
      write(a, 'PUT', '/api/users/2000000000', { json: { name: 'Nobody', email: 'nobody@order.example' } }, () => assert.fail('a PUT of an unknown id succeeded')),
      write(b, 'PUT', `/api/users/${users[0]!.id}`, { json: { name: '', email: 'x@order.example' } }, () => assert.fail('a PUT with an empty name succeeded')),
    ]);

    const [patched, conditional, removed] = [users.slice(0, 8), users.slice(8, 16), users.slice(16, 24)];
    await Promise.all([
      ...patched.map(async (user, i) => {
        const name = `Patched ${tag} ${i}`;
        const res = await write(via(i), 'PATCH', `/api/users/${user.id}`, { json: { name } }, () => ({ type: 'user.updated', user_id: user.id, name, email: user.email }));
        assert.equal(res.status, 200);
        user.name = name;
      }),
      write(b, 'PATCH', '/api/users/2000000000', { json: { name: 'Nobody' } }, () => assert.fail('a PATCH of an unknown id succeeded')),
      ...conditional.map(async (user, i) => {
        const tagBefore = await etagOf(via(i), user.id);
        const next = { name: `If ${tag} ${i}`, email: `if.${tag}.${i}@order.example` };
        const passed = await write(via(i), 'PUT', `/api/users/${user.id}`, { json: next, ifMatch: tagBefore }, () => ({ type: 'user.updated', user_id: user.id, ...next }));
        assert.equal(passed.status, 200);
        Object.assign(user, next);
        const stale = await write(via(i + 1), 'PATCH', `/api/users/${user.id}`, { json: { name: 'Too late' }, ifMatch: tagBefore }, () => assert.fail('a stale If-Match passed'));
        assert.equal(stale.status, 412);
        if (i % 2 === 0) {
          const current = await etagOf(via(i), user.id);
          const removedIf = await write(via(i + 1), 'DELETE', `/api/users/${user.id}`, { ifMatch: current }, () => ({ type: 'user.deleted', user_id: user.id }));
          assert.equal(removedIf.status, 200);
        } else {
          const staleDelete = await write(via(i), 'DELETE', `/api/users/${user.id}`, { ifMatch: tagBefore }, () => assert.fail('a stale If-Match DELETE passed'));
          assert.equal(staleDelete.status, 412);
        }
      }),
      ...removed.map(async (user, i) => {
        const res = await write(via(i), 'DELETE', `/api/users/${user.id}`, {}, () => ({ type: 'user.deleted', user_id: user.id }));
        assert.equal(res.status, 200);
        const again = await write(via(i + 1), 'DELETE', `/api/users/${user.id}`, {}, () => assert.fail('a second DELETE succeeded'));
        assert.equal(again.status, 404);
      }),
    ]);
  }

  /**
   * Reads `service`'s stream from the first event, hanging up after 1 to 5 events each time and
   * resuming after the last one seen (by Last-Event-ID or by ?after=), until the writers are done
   * and the last event recorded has been received.
   */
  async function readResuming(service: RunningService, resumeBy: 'header' | 'query', writing: Promise<number>): Promise<{ events: SseEvent[]; connections: number }> {
    const events: SseEvent[] = [];
    let last = 0;
    let connections = 0;
    let finalId: number | undefined;
    const done = writing.then((id) => (finalId = id));
    for (;;) {
      const stream = await SseClient.open(service.baseUrl, resumeBy === 'header' ? STREAM : `${STREAM}&after=${last}`, resumeBy === 'header' ? { 'last-event-id': String(last) } : {});
      connections += 1;
      try {
        assert.equal(stream.status, 200);
        for (let taken = 0; taken < 1 + (connections % 5); taken++) {
          if (finalId !== undefined && last >= finalId) return { events, connections };
          // While writing goes on, the stream may fall quiet: the writers' end is waited for too.
          const event = finalId === undefined ? await Promise.race([stream.nextEvent(), done.then(() => 'writers done' as const)]) : await stream.nextEvent();
          if (event === 'writers done') break;
          assert.ok(event, 'the stream ended while events were still due');
          events.push(event);
          last = event.id;
        }
      } finally {
        stream.close();
      }
    }
  }

  test('every 2xx write has exactly one event, in id order, each reader receives exactly the outbox, and refused writes have none', async () => {
    let writersDone!: (lastId: number) => void;
    const writing = new Promise<number>((resolve) => (writersDone = resolve));
    const readers = Promise.all([readResuming(a, 'header', writing), readResuming(b, 'query', writing)]);
    await Promise.all(Array.from({ length: WORKERS }, async (_, worker) => {
      for (let r = 0; r < ROUNDS; r++) await round(worker, r);
    }));
    const rows: OutboxRow[] = await numberedEvents(db);
    writersDone(rows.at(-1)!.id);
    const [byHeader, byQuery] = await readers;

    for (const [how, read] of [['Last-Event-ID', byHeader], ['?after=', byQuery]] as const) {
      assert.ok(read.connections >= 50, `${how}: the reader resumed ${read.connections} times`);
      assert.deepEqual(read.events.map((event) => event.id), rows.map((row) => row.id), `${how}: the events received are the outbox's, no gap, no duplicate`);
      assert.deepEqual(
        read.events.map(({ id, event, data }) => ({ id, type: event, user_id: data.data.id, name: data.data.name ?? null, email: data.data.email ?? null, request_id: data.request_id, payloadId: data.id, payloadType: data.type })),
        rows.map(({ id, type, user_id, name, email, request_id }) => ({ id, type, user_id, name, email, request_id, payloadId: id, payloadType: type })),
        `${how}: each event carries its stored row`,
      );
    }
    const ids = rows.map((row) => row.id);
    assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]!), 'ids strictly rising');

    const byRequest = new Map<string, OutboxRow[]>();
    for (const row of rows) byRequest.set(row.request_id ?? '', [...(byRequest.get(row.request_id ?? '') ?? []), row]);
    const acknowledged = writes.filter((each) => each.expected !== undefined);
    for (const each of writes) {
      const found = (byRequest.get(each.requestId) ?? []).map(({ type, user_id, name, email }) => ({ type, user_id, ...(type === 'user.deleted' ? {} : { name, email }) }));
      assert.deepEqual(found, each.expected === undefined ? [] : [each.expected], `${each.method} ${each.path} (${each.status}, ${each.requestId})`);
    }
    assert.equal(rows.length, acknowledged.length, 'no event without an acknowledged write');
    assert.ok(writes.some((each) => each.status === 412) && writes.some((each) => each.status === 404) && writes.some((each) => each.status === 400), 'the refusals were provoked');

    // Events of one statement share its timestamp: fewer timestamps than creates means creates were coalesced.
    const created = rows.filter((row) => row.type === 'user.created');
    assert.ok(new Set(created.map((row) => row.occurred_at)).size < created.length, 'some creates shared one INSERT');
  });
});
