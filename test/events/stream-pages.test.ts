import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import type { StoredEvent } from '../../src/events/event-log.js';
import { EventStream, type EventPages, type StreamEnd, type StreamLimits } from '../../src/events/stream/event-stream.js';
import { defaultStreamLimits } from '../../src/events/stream/event-streams.js';
import { LastIdWatcher } from '../../src/events/stream/last-id-watcher.js';
import { writeStreamHead } from '../../src/events/stream/sse.js';
import { waitUntil } from '../helpers/poll-until.js';
import { SseClient } from './support/sse-client.js';

/**
 * One stream over a fake outbox, served by a bare node:http server: the cases the real outbox
 * cannot be made to show on demand (a page with a hole, a reader that never reads a byte).
 */

function event(id: number, name = `User ${id}`): StoredEvent {
  return { id, type: 'user.updated', user_id: id, name, email: `u${id}@pages.example`, created_at: '2026-01-02 03:04:05', request_id: `r${id}`, occurred_at: '2026-01-02 03:04:05.678901' };
}

/** An outbox holding `ids` (the others missing), pruned through `pruned`; `fail` makes every read reject. */
function fakeOutbox(ids: number[], pruned = 0, fail?: Error): EventPages {
  return {
    after: async (id, limit) => {
      if (fail) throw fail;
      return ids.filter((each) => each > id).slice(0, limit).map((each) => event(each));
    },
    prunedThrough: async () => pruned,
  };
}

interface Served {
  baseUrl: string;
  ended: Promise<StreamEnd>;
  server: Server;
}

const servers: Server[] = [];
after(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

/** A server whose one request is a stream over `log`, from `cursor` with the last id `lastId`. */
async function serve(log: EventPages, cursor: number, lastId: number, limits: Partial<StreamLimits> = {}): Promise<Served> {
  let told!: (why: StreamEnd) => void;
  const ended = new Promise<StreamEnd>((resolve) => (told = resolve));
  const server = createServer((_req, res) => {
    writeStreamHead(res);
    new EventStream(res, log, cursor, lastId, { ...defaultStreamLimits, ...limits }, (_stream, why) => told(why)).start();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ended, server };
}

/** Ids of the events a reader receives until the stream ends. */
async function readAll(stream: SseClient): Promise<number[]> {
  const ids: number[] = [];
  for (let event = await stream.nextEvent(); event; event = await stream.nextEvent()) ids.push(event.id);
  return ids;
}

describe('one stream over its outbox', () => {
  test('events after the cursor are sent in pages, in id order, each once', async () => {
    const { baseUrl } = await serve(fakeOutbox([1, 2, 3, 4, 5, 6, 7]), 2, 7, { pageSize: 2 });
    const stream = await SseClient.open(baseUrl, '/');
    try {
      const ids: number[] = [];
      while (ids.length < 5) ids.push((await stream.nextEvent())!.id);
      assert.deepEqual(ids, [3, 4, 5, 6, 7]);
    } finally {
      stream.close();
    }
  });

  test('a page with a hole where events were pruned ends the stream, sending nothing of it: the reader\'s resume is then told 410', async () => {
    const { baseUrl, ended } = await serve(fakeOutbox([1, 2, 5, 6], 4), 2, 6);
    const stream = await SseClient.open(baseUrl, '/');
    assert.deepEqual(await readAll(stream), []);
    assert.equal(await stream.ended, 'end');
    assert.equal(await ended, 'pruned');
  });

  test('a hole nobody pruned is no gap a reader could fill: the events are sent as they are', async () => {
    const { baseUrl } = await serve(fakeOutbox([1, 2, 5, 6], 2), 2, 6);
    const stream = await SseClient.open(baseUrl, '/');
    try {
      assert.deepEqual([(await stream.nextEvent())?.id, (await stream.nextEvent())?.id], [5, 6]);
    } finally {
      stream.close();
    }
  });

  test('a failed read ends the stream cleanly (the reader resumes with Last-Event-ID)', async () => {
    const { baseUrl, ended } = await serve(fakeOutbox([], 0, new Error('connection lost')), 0, 3);
    const stream = await SseClient.open(baseUrl, '/');
    assert.equal(await stream.ended, 'end');
    assert.equal(await ended, 'database error');
  });

  /** Events of about 2 KB, far more than socket buffers hold: a reader that reads nothing must be let go. */
  const flood = fakeOutbox(Array.from({ length: 30_000 }, (_, i) => i + 1));
  (flood as { after: EventPages['after'] }).after = async (id, limit) =>
    Array.from({ length: Math.min(limit, 30_000 - id) }, (_, i) => event(id + i + 1, 'x'.repeat(2000)));

  /** A reader that sends its request and never reads a byte of the answer. */
  const stalledReader = async (baseUrl: string): Promise<void> => {
    const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
    socket.pause();
    socket.on('error', () => {});
    socket.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
    after(() => socket.destroy());
  };

  test('a reader whose response holds more unsent bytes than the bound is closed', async () => {
    const { baseUrl, ended } = await serve(flood, 0, 30_000, { maxBufferedBytes: 64 * 1024 });
    await stalledReader(baseUrl);
    assert.equal(await ended, 'reader too slow');
  });

  test('a reader that takes nothing more within the drain timeout is closed, whatever the bound', async () => {
    const { baseUrl, ended } = await serve(flood, 0, 30_000, { maxBufferedBytes: 1024 ** 3, drainTimeoutMs: 300, pageSize: 20 });
    await stalledReader(baseUrl);
    assert.equal(await ended, 'reader too slow');
  });
});

describe('the last-id watcher', () => {
  test('looks only while a stream listens, and tells every listener each result', async () => {
    let looks = 0;
    const watcher = new LastIdWatcher(async () => ++looks, 10);
    assert.equal(watcher.watching, false);
    const seen: number[] = [];
    const listener = { seen: (id: number) => seen.push(id), failed: () => assert.fail('no failure') };
    watcher.add(listener);
    assert.equal(watcher.watching, true);
    await waitUntil('three looks', () => seen.length >= 3);
    watcher.remove(listener);
    await waitUntil('the watcher to stop', () => !watcher.watching);
    const stoppedAt = looks;
    assert.deepEqual(seen.slice(0, 3), [1, 2, 3]);
    watcher.add(listener);
    await waitUntil('a look after listening again', () => looks > stoppedAt);
    watcher.remove(listener);
  });

  test('a failed look is told to every listener', async () => {
    const watcher = new LastIdWatcher(() => Promise.reject(new Error('down')), 10);
    const failures: string[] = [];
    const listener = (name: string) => ({ seen: () => assert.fail('no result'), failed: (error: unknown) => failures.push(`${name}: ${(error as Error).message}`) });
    const [one, two] = [listener('one'), listener('two')];
    watcher.add(one);
    watcher.add(two);
    await waitUntil('both told', () => failures.length >= 2);
    watcher.remove(one);
    watcher.remove(two);
    assert.deepEqual(failures.slice(0, 2).sort(), ['one: down', 'two: down']);
  });
});
