import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { LIST_CHUNK_BYTES } from '../../src/users/storage/list-layout.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

/** About 5 MB of JSON: some twenty chunks, more than the socket buffers of a reader that holds back take. */
const USERS = 50_000;
/** The reader takes this many bytes at a time, then yields to the timers before the next read. */
const READ_BYTES = 16 * 1024;

/** What the listing's response was asked to write: each chunk, the bytes still queued before it, and its memory. */
interface Written {
  bytes: number;
  queuedBefore: number;
  /** Chunks written before this one whose write had not completed yet. */
  unsentBefore: number;
  memory: ArrayBufferLike;
  queuedAfter: number;
}

/** Records every chunk the service writes to the listing's response (the service runs in this process). */
function watchListingWrites(service: RunningService): Written[] {
  const written: Written[] = [];
  service.app.http.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/api/users?')) return;
    let unsent = 0;
    const write = res.write.bind(res) as (chunk: Buffer, done?: (error?: Error | null) => void) => boolean;
    (res as { write: unknown }).write = (chunk: Buffer, done?: (error?: Error | null) => void): boolean => {
      const entry: Written = { bytes: chunk.length, queuedBefore: res.writableLength, unsentBefore: unsent, memory: chunk.buffer, queuedAfter: 0 };
      unsent++;
      const answer = write(chunk, (error) => {
        unsent--;
        done?.(error);
      });
      entry.queuedAfter = res.writableLength;
      written.push(entry);
      return answer;
    };
  });
  return written;
}

/** GET the list over a raw socket, reading READ_BYTES at a time and yielding between reads. */
function readSlowly(service: RunningService, path: string): Promise<Buffer> {
  const { hostname, port } = new URL(service.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const parts: Buffer[] = [];
    const readSome = (): void => {
      const part = (socket.read(READ_BYTES) ?? socket.read()) as Buffer | null;
      if (part) parts.push(part);
      // Slower than the service and the database: the service must wait for this reader.
      setTimeout(() => (socket.readableLength > 0 ? readSome() : socket.once('readable', readSome)), 1);
    };
    socket.once('readable', readSome);
    socket.on('error', reject);
    socket.on('end', () => {
      const rest = socket.read() as Buffer | null;
      resolve(Buffer.concat(rest ? [...parts, rest] : parts));
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}

/** The body of a chunked HTTP/1.1 response. */
function chunkedBody(response: Buffer): Buffer {
  let at = response.indexOf('\r\n\r\n') + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = response.indexOf('\r\n', at);
    const size = Number.parseInt(response.toString('latin1', at, lineEnd), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(response.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

describe('a long list read by a slow client', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('list_slow_reader');
    await service.db.query(
      `INSERT INTO users (name, email) SELECT CONCAT('Slow reader ', seq), CONCAT('slow', seq, '@example.com') FROM seq_1_to_${USERS}`,
    );
  });
  after(() => service.close());

  test('each chunk is written only once the one before was handed to the network, from the same few chunk buffers, and the list arrives whole', async () => {
    const written = watchListingWrites(service);
    const response = await readSlowly(service, `/api/users?pwd=${TEST_PASSWORD}`);
    assert.match(response.toString('latin1', 0, 20), /^HTTP\/1\.1 200 /);

    const users = JSON.parse(chunkedBody(response).toString('utf8')) as Array<{ id: number; name: string }>;
    const stored = await service.db.users();
    assert.deepEqual(users.map((user) => user.id), stored.map((user) => user.id));
    assert.deepEqual(users.map((user) => user.name), stored.map((user) => user.name));

    assert.ok(written.length > 10, `the list took ${written.length} chunks`);
    assert.ok(written.some((chunk) => chunk.queuedAfter > 0), 'the reader was slower than the service: some chunk had to wait for the socket');
    for (const [i, chunk] of written.entries()) {
      assert.ok(chunk.bytes <= LIST_CHUNK_BYTES, `chunk ${i} holds ${chunk.bytes} bytes`);
      assert.equal(chunk.unsentBefore, 0, `chunk ${i} was written while an earlier one was still unsent`);
      assert.equal(chunk.queuedBefore, 0, `chunk ${i} was written with ${chunk.queuedBefore} bytes still queued ahead of it`);
    }
    // The first chunk, then one in the socket, one waiting and one being filled, used again and again.
    const buffers = new Set(written.map((chunk) => chunk.memory));
    assert.ok(buffers.size <= 4, `${written.length} chunks were written from ${buffers.size} buffers`);
  });
});
