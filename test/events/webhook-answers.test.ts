import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { post, type PostResult } from '../../src/events/webhooks/post.js';

/** What each answer of an endpoint means for a delivery (post.ts), against a real server on port 0. */
describe('what acknowledges a webhook delivery', () => {
  let server: Server;
  let base: string;
  /** Paths requested, to see that a redirect is not followed. */
  const requested: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      requested.push(req.url!);
      const [, kind, value] = req.url!.split('/');
      if (kind === 'status') res.writeHead(Number(value), { location: '/elsewhere' }).end();
      else if (kind === 'big') res.writeHead(200).end(Buffer.alloc(5 * 1024 * 1024));
      else if (kind === 'endless') {
        res.writeHead(200);
        const timer = setInterval(() => res.write('x'.repeat(1024)), 5);
        res.once('close', () => clearInterval(timer));
      }
      // `silent`: no answer at all.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  /** The result without its duration and answer body (checked on their own below). */
  const send = async (path: string, timeoutMs = 2000, stop = new AbortController().signal): Promise<Shape> => shape(await post(`${base}${path}`, '{}', {}, timeoutMs, stop));

  const rows: Array<{ path: string; expected: Shape }> = [
    { path: '/status/200', expected: { kind: 'acknowledged', status: 200 } },
    { path: '/status/202', expected: { kind: 'acknowledged', status: 202 } },
    { path: '/status/204', expected: { kind: 'acknowledged', status: 204 } },
    { path: '/status/302', expected: { kind: 'failed', error: 'HTTP 302 (redirects are not followed)', reason: 'redirect not followed', status: 302 } },
    { path: '/status/307', expected: { kind: 'failed', error: 'HTTP 307 (redirects are not followed)', reason: 'redirect not followed', status: 307 } },
    { path: '/status/404', expected: { kind: 'failed', error: 'HTTP 404', reason: null, status: 404 } },
    { path: '/status/500', expected: { kind: 'failed', error: 'HTTP 500', reason: null, status: 500 } },
    { path: '/big', expected: { kind: 'acknowledged', status: 200 } },
    { path: '/endless', expected: { kind: 'acknowledged', status: 200 } },
  ];
  for (const { path, expected } of rows) {
    test(`${path} -> ${expected.kind}${expected.kind === 'failed' ? ` (${expected.error})` : ''}`, async () => {
      assert.deepEqual(await send(path), expected);
    });
  }

  test('at most the first 1 024 bytes of an answer are kept, as text; none is null', async () => {
    const big = await post(`${base}/big`, '{}', {}, 2000, new AbortController().signal);
    assert.equal(big.kind === 'acknowledged' && big.body?.length, 1024);
    const endless = await post(`${base}/endless`, '{}', {}, 2000, new AbortController().signal);
    assert.equal(endless.kind === 'acknowledged' && endless.body, 'x'.repeat(1024));
    const empty = await post(`${base}/status/204`, '{}', {}, 2000, new AbortController().signal);
    assert.equal(empty.kind === 'acknowledged' && empty.body, null);
    assert.ok(empty.kind === 'acknowledged' && Number.isInteger(empty.durationMs) && empty.durationMs >= 0);
  });

  test('a redirect is never followed', async () => {
    requested.length = 0;
    await send('/status/301');
    assert.deepEqual(requested, ['/status/301']);
  });

  test('no answer within the timeout is a failed attempt', async () => {
    assert.deepEqual(await send('/silent', 300), { kind: 'failed', error: 'no answer within 0.3 s', reason: 'timeout', status: null });
  });

  test('a refused connection is a failed attempt naming the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.deepEqual(shape(await post(`http://127.0.0.1:${port}/`, '{}', {}, 2000, new AbortController().signal)), {
      kind: 'failed',
      error: 'request failed: ECONNREFUSED',
      reason: 'refused',
      status: null,
    });
  });

  test('a request cut by stop is no attempt at all: stopped, not failed', async () => {
    const stop = new AbortController();
    const pending = send('/silent', 10_000, stop.signal);
    setTimeout(() => stop.abort(), 50);
    assert.deepEqual(await pending, { kind: 'stopped' });
    assert.deepEqual(await send('/status/200', 2000, stop.signal), { kind: 'stopped' });
  });
});

type Shape = { kind: 'stopped' } | { kind: 'acknowledged'; status: number } | { kind: 'failed'; error: string; reason: string | null; status: number | null };

function shape(result: PostResult): Shape {
  if (result.kind === 'stopped') return result;
  if (result.kind === 'acknowledged') return { kind: result.kind, status: result.status };
  return { kind: result.kind, error: result.error, reason: result.reason, status: result.status };
}
