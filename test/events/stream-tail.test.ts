import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import type { EventLog, StoredEvent } from '../../src/events/event-log.js';
import type { StreamLimits } from '../../src/events/stream/event-stream.js';
import { defaultStreamLimits, EventStreams } from '../../src/events/stream/event-streams.js';
import { EventTail, type TailLimits } from '../../src/events/stream/event-tail.js';
import type { EventText } from '../../src/events/stream/event-window.js';
import { createLogger } from '../../src/log/logger.js';
import { waitUntil } from '../helpers/poll-until.js';
import { SseClient } from './support/sse-client.js';

/**
 * The tail and the streams over a fake outbox, served by a bare node:http server: what the real
 * outbox cannot be made to show on demand (a page with a hole, a read that fails, counted reads).
 */

function event(id: number, name = `User ${id}`): StoredEvent {
  return { id, type: 'user.updated', user_id: id, name, email: `u${id}@tail.example`, created_at: '2026-01-02 03:04:05', request_id: `r${id}`, occurred_at: '2026-01-02 03:04:05.678901' };
}

/** An outbox whose events and marks the test sets, counting every read. */
class FakeOutbox {
  ids: number[] = [];
  pruned = 0;
  failing = false;
  reads = 0;
  name = (id: number): string => `User ${id}`;

  add(count: number): number {
    const from = (this.ids.at(-1) ?? 0) + 1;
    for (let id = from; id < from + count; id++) this.ids.push(id);
    return this.ids.at(-1)!;
  }

  readonly log = {
    after: async (id: number, limit: number): Promise<StoredEvent[]> => this.read(() => this.ids.filter((each) => each > id).slice(0, limit).map((each) => event(each, this.name(each)))),
    marks: async () => this.read(() => ({ lastId: this.ids.at(-1) ?? 0, prunedThrough: this.pruned })),
    prunedThrough: async () => this.read(() => this.pruned),
  } as unknown as EventLog;

  private async read<T>(answer: () => T): Promise<T> {
    this.reads++;
    await new Promise((resolve) => setImmediate(resolve));
    if (this.failing) throw new Error('connection lost');
    return answer();
  }
}

const quiet = createLogger(() => {});
const logged: string[] = [];
const recording = createLogger((line) => logged.push(line));
const tailLimits = (limits: Partial<TailLimits> = {}): TailLimits => ({ ...defaultStreamLimits, pollMs: 60_000, marksMs: 60_000, ...limits });

describe('the tail: one reader of new events for every stream of the process', () => {
  test('however many listen, each look is one read, and each run of new events is handed to every listener as one shared text', async () => {
    const outbox = new FakeOutbox();
    outbox.add(3);
    const tail = new EventTail(outbox.log, tailLimits(), quiet);
    await tail.current();
    const runs: EventText[][] = Array.from({ length: 1000 }, () => []);
    const listeners = runs.map((got) => ({ appended: (run: EventText) => got.push(run) }));
    for (const listener of listeners) tail.add(listener);
    await waitUntil('the first look', () => outbox.reads >= 2);
    const before = outbox.reads;
    const last = outbox.add(5);
    tail.numbered(last);
    await waitUntil('the new events handed out', () => runs.every((got) => got.at(-1)?.through === last));
    assert.equal(outbox.reads - before, 1, 'one read for a thousand listeners');
    assert.ok(runs.every((got) => got.at(-1)!.text === runs[0]!.at(-1)!.text && got.at(-1)!.after === 3));
    assert.match(runs[0]!.at(-1)!.text, /^id: 4\nevent: user\.updated\ndata: \{"id":4,/);
    for (const listener of listeners) tail.remove(listener);
  });

  test('new events are handed out in runs of at most pieceChars, each following on from the last', async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox.log, tailLimits({ pieceChars: 600 }), quiet);
    await tail.current();
    const got: EventText[] = [];
    const listener = { appended: (run: EventText) => got.push(run) };
    tail.add(listener);
    tail.numbered(outbox.add(20));
    await waitUntil('every event handed out', () => got.at(-1)?.through === 20);
    assert.ok(got.length > 1 && got.every((run) => run.text.length <= 600));
    got.forEach((run, i) => assert.equal(run.after, i === 0 ? 0 : got[i - 1]!.through));
    tail.remove(listener);
  });

  test('a failed look ends nothing and tells nothing: once a look succeeds, the listeners get what came meanwhile, in order; one warning, one recovery line', async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox.log, tailLimits({ pollMs: 10 }), recording);
    await tail.current();
    const got: EventText[] = [];
    const listener = { appended: (run: EventText) => void got.push(run) };
    tail.add(listener);
    outbox.failing = true;
    outbox.add(4);
    const readsWhenFailing = outbox.reads;
    await waitUntil('several failed looks', () => outbox.reads >= readsWhenFailing + 3);
    assert.equal(got.length, 0);
    outbox.failing = false;
    await waitUntil('the events after the failure', () => got.at(-1)?.through === 4);
    assert.deepEqual(got.map((run) => run.after), [0]);
    assert.equal(logged.filter((line) => line.includes('reading new events failed')).length, 1);
    await waitUntil('the recovery line', () => logged.some((line) => line.includes('reading new events recovered')));
    tail.remove(listener);
  });

  test('it looks only while someone listens', async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox.log, tailLimits({ pollMs: 5 }), quiet);
    await tail.current();
    const listener = { appended: () => {} };
    tail.add(listener);
    await waitUntil('a few looks', () => outbox.reads >= 4);
    tail.remove(listener);
    const stoppedAt = outbox.reads;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(outbox.reads <= stoppedAt + 1, 'no looks without a listener');
  });
});

const servers: Server[] = [];
after(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

interface Served {
  baseUrl: string;
  streams: EventStreams;
}

/** A server whose every request is a stream over the outbox, resuming after the `after` query parameter if given. */
async function serve(outbox: FakeOutbox, limits: Partial<StreamLimits> = {}): Promise<Served> {
  const streams = new EventStreams(outbox.log, recording, { ...defaultStreamLimits, pollMs: 20, ...limits });
  const server = createServer((req, res) => {
    const from = new URL(req.url!, 'http://test').searchParams.get('after');
    streams.serve(req, res, from === null ? undefined : Number(from)).catch((error: unknown) => {
      res.writeHead((error as { status?: number }).status ?? 500).end(JSON.stringify(error));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, streams };
}

/** The ids of the next `count` events the reader receives. */
async function idsOf(stream: SseClient, count: number): Promise<number[]> {
  const ids: number[] = [];
  while (ids.length < count) {
    const next = await stream.nextEvent();
    if (!next) break;
    ids.push(next.id);
  }
  return ids;
}

describe('the streams: served from the window, and from the outbox only behind it', () => {
  test('streams resuming within the window cost no read of the outbox', async () => {
    const outbox = new FakeOutbox();
    outbox.add(50);
    const { baseUrl, streams } = await serve(outbox, { pollMs: 60_000 });
    const first = await SseClient.open(baseUrl, '/');
    const last = outbox.add(30);
    streams.numbered(last);
    assert.equal((await idsOf(first, 30)).at(-1), last);
    const readsBefore = outbox.reads;
    const resumed = await Promise.all([55, 60, 79].map((from) => SseClient.open(baseUrl, `/?after=${from}`)));
    try {
      assert.deepEqual(await Promise.all(resumed.map(async (stream) => (await stream.nextEvent())?.id)), [56, 61, 80]);
      assert.equal(outbox.reads, readsBefore, 'no read for three resumes');
    } finally {
      first.close();
      for (const stream of resumed) stream.close();
    }
  });

  test('a stream resuming from before the window reads pages of the outbox itself, then goes on with the new events', async () => {
    const outbox = new FakeOutbox();
    outbox.add(40);
    const { baseUrl } = await serve(outbox, { pageSize: 7, windowEvents: 10 });
    const live = await SseClient.open(baseUrl, '/');
    const behind = await SseClient.open(baseUrl, '/?after=3');
    try {
      assert.deepEqual(await idsOf(behind, 37), Array.from({ length: 37 }, (_, i) => i + 4));
      const last = outbox.add(3);
      assert.deepEqual(await idsOf(behind, 3), [last - 2, last - 1, last]);
      assert.deepEqual(await idsOf(live, 3), [last - 2, last - 1, last]);
    } finally {
      live.close();
      behind.close();
    }
  });

  test('a page with a hole where events were pruned ends the stream, sending nothing of it, and says when to come back', async () => {
    const outbox = new FakeOutbox();
    outbox.ids = [1, 2, 5, 6, 7];
    const { baseUrl } = await serve(outbox, { windowEvents: 2 });
    outbox.pruned = 0;
    const stream = await SseClient.open(baseUrl, '/?after=2');
    assert.equal(stream.status, 200);
    outbox.pruned = 4;
    const frames = [];
    for (let frame = await stream.next(); frame; frame = await stream.next()) frames.push(frame);
    assert.equal(frames.filter((frame) => frame.event !== undefined).length, 0);
    assert.ok(Number(frames.at(-1)?.retry) >= 1000, JSON.stringify(frames));
  });

  test('a hole nobody pruned is no gap a reader could fill: the events are sent as they are', async () => {
    const outbox = new FakeOutbox();
    outbox.ids = [1, 2, 5, 6, 7, 8, 9];
    const { baseUrl } = await serve(outbox, { windowEvents: 2 });
    const stream = await SseClient.open(baseUrl, '/?after=2');
    try {
      assert.deepEqual(await idsOf(stream, 5), [5, 6, 7, 8, 9]);
    } finally {
      stream.close();
    }
  });

  test('a failed read behind the window ends nothing: it is tried again, and the stream goes on', async () => {
    const outbox = new FakeOutbox();
    outbox.add(300);
    const { baseUrl } = await serve(outbox, { windowEvents: 5, pageSize: 5 });
    const stream = await SseClient.open(baseUrl, '/?after=10');
    assert.equal(stream.status, 200);
    outbox.failing = true;
    const failedFrom = outbox.reads;
    await waitUntil('failed reads', () => outbox.reads > failedFrom + 2);
    outbox.failing = false;
    try {
      assert.deepEqual(await idsOf(stream, 290), Array.from({ length: 290 }, (_, i) => i + 11));
    } finally {
      stream.close();
    }
  });

  /** A reader that sends its request and never reads a byte of the answer. */
  const stalledReader = async (baseUrl: string): Promise<void> => {
    const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
    socket.pause();
    socket.on('error', () => {});
    socket.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
    after(() => socket.destroy());
  };

  test('a reader that takes nothing within the drain timeout is let go, alone: the one that reads gets every event', async () => {
    const outbox = new FakeOutbox();
    outbox.name = () => 'x'.repeat(2000);
    const { baseUrl, streams } = await serve(outbox, { drainTimeoutMs: 300 });
    const reading = await SseClient.open(baseUrl, '/');
    await stalledReader(baseUrl);
    await waitUntil('both open', () => streams.size === 2);
    let last = 0;
    // Enough to fill the socket buffers between the service and a reader that reads nothing.
    for (let round = 0; round < 200 && streams.size === 2; round++) {
      last = outbox.add(100);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitUntil('the stalled reader let go', () => streams.size === 1);
    assert.ok(logged.some((line) => line.includes('event stream closed: its reader fell behind')));
    assert.equal((await idsOf(reading, last)).at(-1), last);
    reading.close();
  });
});
