import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { parseResponse, type RawResponse } from '../helpers/raw-response.js';
import { startService, type RunningService } from '../helpers/service.js';

// Production waits 10 s for headers and 30 s for a request; the same mechanism, shortened.
const limits = { headersTimeoutMs: 1500, requestTimeoutMs: 3000, keepAliveTimeoutMs: 1000, timeoutCheckIntervalMs: 250 };
const TRICKLE_EVERY_MS = 250;
/** A bound on how long a slow client may stay connected before the test calls it a hang. */
const GIVE_UP_MS = 15_000;

let service: RunningService;
let port: number;
before(async () => {
  service = await startService('clients_slow', { serverLimits: limits });
  port = Number(new URL(service.baseUrl).port);
});
after(() => service.close());

interface SlowClient {
  /** True while the server has not closed the connection. */
  readonly open: boolean;
  /** How many bytes were trickled after the opening. */
  readonly trickled: number;
  /** Settles once the server closes the connection: its answer, if any. */
  readonly closed: Promise<RawResponse | undefined>;
}

/** Sends `opening` at once, then one byte of `trickle` every TRICKLE_EVERY_MS, never finishing on its own. */
function slowClient(opening: string, trickle: string): SlowClient {
  const socket = connect({ port, host: '127.0.0.1' });
  let received = Buffer.alloc(0);
  let trickled = 0;
  let open = true;
  const timer = setInterval(() => {
    if (trickled < trickle.length && socket.writable) socket.write(trickle[trickled++]!);
  }, TRICKLE_EVERY_MS);
  const closed = new Promise<RawResponse | undefined>((resolve, reject) => {
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept a slow client connected for ${GIVE_UP_MS} ms`));
    }, GIVE_UP_MS);
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    socket.on('error', () => {});
    socket.on('close', () => {
      open = false;
      clearInterval(timer);
      clearTimeout(giveUp);
      const parsed = parseResponse(received, false, true);
      resolve(parsed && { ...parsed, closedByServer: true });
    });
  });
  socket.write(opening);
  return {
    get open() {
      return open;
    },
    get trickled() {
      return trickled;
    },
    closed,
  };
}

function assertTimedOut(res: RawResponse | undefined): void {
  assert.ok(res, 'the server answered before closing');
  assert.equal(res.status, 408);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(res.json, { error: 'Request timed out' });
  assert.equal(res.headers.connection, 'close');
}

/**
 * Ordinary clients, all at once, while the slow ones hold their connections: each must be served.
 * Resolves whether any was answered while `slowStillConnected()` held; the slow ones are cut off at
 * a fixed time, so asking only once all were answered would make a loaded machine fail the test.
 */
async function serveOthers(email: string, slowStillConnected: () => boolean): Promise<boolean> {
  let servedWhileConnected = false;
  const served = async (response: Promise<{ status: number }>, status: number): Promise<void> => {
    assert.equal((await response).status, status);
    if (slowStillConnected()) servedWhileConnected = true;
  };
  await Promise.all([
    ...Array.from({ length: 5 }, (_, i) => served(request(service.baseUrl, 'GET', `/api/users/${i + 1}`), 200)),
    served(request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Served', email } }), 201),
  ]);
  return servedWhileConnected;
}

describe('slow and abusive clients', { concurrency: true }, () => {
  test('slow-loris: 20 clients trickling header bytes are answered 408 and cut off at headersTimeout, while other clients are served', async () => {
    const lorises = Array.from({ length: 20 }, () => slowClient('GET /api/users/1 HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'a'.repeat(1000)));
    const servedWhileConnected = await serveOthers('during-loris@example.com', () => lorises.some((loris) => loris.open));
    assert.ok(servedWhileConnected, 'the other clients were served while slow clients were connected');
    const answers = await Promise.all(lorises.map((loris) => loris.closed));
    for (const [i, answer] of answers.entries()) {
      assertTimedOut(answer);
      assert.ok(lorises[i]!.trickled >= 1, 'the client was still sending when it was cut off');
      assert.ok(lorises[i]!.trickled < 1000, 'the client never finished its headers');
    }
    assert.equal((await request(service.baseUrl, 'GET', '/api/users/2')).status, 200);
  });

  test('a body trickled byte by byte is answered 408 at requestTimeout, stores nothing, and others are served meanwhile', async () => {
    const body = JSON.stringify({ name: 'Slow Body', email: 'slow-body@example.com' });
    const slow = slowClient(
      `POST /api/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    );
    const servedWhileArriving = await serveOthers('during-slow-body@example.com', () => slow.open);
    assert.ok(servedWhileArriving, 'the other clients were served while the slow body was still arriving');
    assertTimedOut(await slow.closed);
    assert.ok(slow.trickled < body.length, 'the body never completed');
    assert.deepEqual(await service.db.query('SELECT id FROM users WHERE email = ?', ['slow-body@example.com']), []);
  });

  test('a body shorter than its Content-Length, the client then waiting, is answered 408 at requestTimeout', async () => {
    const waiting = slowClient(
      'POST /api/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"Lying","email":"lying@example.com"}',
      '',
    );
    assertTimedOut(await waiting.closed);
    assert.deepEqual(await service.db.query('SELECT id FROM users WHERE email = ?', ['lying@example.com']), []);
  });

  test('a connection that never sends a byte is answered 408 and closed at headersTimeout', async () => {
    assertTimedOut(await slowClient('', '').closed);
  });

  test('an idle keep-alive connection is closed by the server after keepAliveTimeout', async () => {
    const idle = slowClient('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '');
    const answer = await idle.closed;
    assert.equal(answer?.status, 200, 'the request was answered first');
    assert.equal(answer?.headers.connection, 'keep-alive');
    assert.equal(answer?.headers['keep-alive'], `timeout=${limits.keepAliveTimeoutMs / 1000}`);
    assert.equal(answer?.trailing.length, 0, 'closed quietly, not answered 408 as a request that timed out');
  });
});
