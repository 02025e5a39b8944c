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

  const rows: Array<{ path: string; expected: PostResult }> = [
    { path: '/status/200', expected: { kind: 'acknowledged' } },
    { path: '/status/202', expected: { kind: 'acknowledged' } },
    { path: '/status/204', expected: { kind: 'acknowledged' } },
    { path: '/status/302', expected: { kind: 'failed', error: 'HTTP 302 (redirects are not followed)' } },
    { path: '/status/307', expected: { kind: 'failed', error: 'HTTP 307 (redirects are not followed)' } },
    { path: '/status/404', expected: { kind: 'failed', error: 'HTTP 404' } },
    { path: '/status/500', expected: { kind: 'failed', error: 'HTTP 500' } },
    { path: '/big', expected: { kind: 'acknowledged' } },
    { path: '/endless', expected: { kind: 'acknowledged' } },
  ];
  for (const { path, expected } of rows) {
    test(`${path} -> ${expected.kind}${expected.kind === 'failed' ? ` (${expected.error})` : ''}`, async () => {
      assert.deepEqual(await send(path), expected);
    });
  }

  test('a redirect is never followed', async () => {
    requested.length = 0;
    await send('/status/301');
    assert.deepEqual(requested, ['/status/301']);
  });

  test('no answer within the timeout is a failed attempt', async () => {
    assert.deepEqual(await send('/silent', 300), { kind: 'failed', error: 'no answer within 0.3 s' });
  });

  test('a refused connection is a failed attempt naming the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.deepEqual(await post(`http://127.0.0.1:${port}/`, '{}', {}, 2000, new AbortController().signal), { kind: 'failed', error: 'request failed: ECONNREFUSED' });
  });

  test('a request cut by stop is no attempt at all: stopped, not failed', async () => {
    const stop = new AbortController();
    const pending = send('/silent', 10_000, stop.signal);
    setTimeout(() => stop.abort(), 50);
    assert.deepEqual(await pending, { kind: 'stopped' });
    assert.deepEqual(await send('/status/200', 2000, stop.signal), { kind: 'stopped' });
  });
});
