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

  const send = (path: string, timeoutMs = 2000, stop = new AbortController().signal): Promise<PostResult> => post(`${base}${path}`, '{}', {}, timeoutMs, stop);

  /** A result with its duration set to 0: no rule here is about time taken. */
  const timeless = (result: PostResult): PostResult => (result.kind === 'stopped' ? result : { ...result, durationMs: 0 });
  const acknowledged = (status: number, body: string | null = null): PostResult => ({ kind: 'acknowledged', status, body, durationMs: 0 });
  const failed = (status: number | null, error: string, reason: string | null): PostResult => ({ kind: 'failed', error, reason, status, body: null, durationMs: 0 });

  const rows: Array<{ path: string; expected: PostResult }> = [
    { path: '/status/200', expected: acknowledged(200) },
    { path: '/status/202', expected: acknowledged(202) },
    { path: '/status/204', expected: acknowledged(204) },
    { path: '/status/302', expected: failed(302, 'HTTP 302 (redirects are not followed)', 'redirect not followed') },
    { path: '/status/307', expected: failed(307, 'HTTP 307 (redirects are not followed)', 'redirect not followed') },
    { path: '/status/404', expected: failed(404, 'HTTP 404', null) },
    { path: '/status/500', expected: failed(500, 'HTTP 500', null) },
    { path: '/big', expected: acknowledged(200, '\0'.repeat(1024)) },
    { path: '/endless', expected: acknowledged(200, 'x'.repeat(1024)) },
  ];
  for (const { path, expected } of rows) {
    test(`${path} -> ${expected.kind}${expected.kind === 'failed' ? ` (${expected.error})` : ''}`, async () => {
      assert.deepEqual(timeless(await send(path)), expected);
    });
  }

  test('a redirect is never followed', async () => {
    requested.length = 0;
    await send('/status/301');
    assert.deepEqual(requested, ['/status/301']);
  });

  test('no answer within the timeout is a failed attempt', async () => {
    assert.deepEqual(timeless(await send('/silent', 300)), failed(null, 'no answer within 0.3 s', 'timeout'));
  });

  test('a refused connection is a failed attempt naming the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.deepEqual(timeless(await post(`http://127.0.0.1:${port}/`, '{}', {}, 2000, new AbortController().signal)), failed(null, 'request failed: ECONNREFUSED', 'refused'));
  });

  test('a request cut by stop is no attempt at all: stopped, not failed', async () => {
    const stop = new AbortController();
    const pending = send('/silent', 10_000, stop.signal);
    setTimeout(() => stop.abort(), 50);
    assert.deepEqual(await pending, { kind: 'stopped' });
    assert.deepEqual(await send('/status/200', 2000, stop.signal), { kind: 'stopped' });
  });
});
