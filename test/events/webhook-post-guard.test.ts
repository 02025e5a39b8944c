import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { AddressGuard } from '../../src/events/webhooks/address-guard.js';
import { post, type PostOptions, type PostResult } from '../../src/events/webhooks/post.js';
import { Certificates } from '../helpers/certificates.js';

/** A receiver on 127.0.0.1, port 0, counting every TCP connection it accepts. */
interface Recorder {
  port: number;
  connections: number;
}

const servers: Array<ReturnType<typeof createServer>> = [];
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

async function recorder(answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(204).end()): Promise<Recorder> {
  const server = createServer(answer);
  servers.push(server);
  const recorded: Recorder = { port: 0, connections: 0 };
  server.on('connection', () => recorded.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorded.port = (server.address() as AddressInfo).port;
  return recorded;
}

const send = (url: string, options?: PostOptions, timeoutMs = 2000): Promise<PostResult> => post(url, '{"id":1}', {}, timeoutMs, new AbortController().signal, options);

const noNetworks = { guard: new AddressGuard([]) };
const loopbackAllowed = { guard: new AddressGuard(['127.0.0.0/8', '::1/128']) };

describe('a guarded post never connects to a refused address', () => {
  const spellings = ['localhost', '127.1', '2130706433', '0x7f000001', '[::ffff:127.0.0.1]'];
  for (const host of spellings) {
    test(`http://${host}:<port>/ with no allowed networks -> address not allowed, and no connection at all`, async () => {
      const receiver = await recorder();
      const result = await send(`http://${host}:${receiver.port}/`, noNetworks);
      assert.equal(result.kind, 'failed');
      assert.equal(result.kind === 'failed' && result.reason, 'address not allowed');
      assert.equal(result.kind === 'failed' && result.error, 'address not allowed');
      assert.equal(receiver.connections, 0);
    });

    test(`http://${host}:<port>/ with 127.0.0.0/8,::1/128 allowed -> delivered`, async () => {
      const receiver = await recorder();
      const result = await send(`http://${host}:${receiver.port}/`, loopbackAllowed);
      assert.equal(result.kind, 'acknowledged');
      assert.equal(receiver.connections, 1);
    });
  }

  test('without a guard (the operator\'s WEBHOOK_URLS) loopback is reached', async () => {
    const receiver = await recorder();
    const result = await send(`http://127.0.0.1:${receiver.port}/`);
    assert.equal(result.kind, 'acknowledged');
    assert.equal(receiver.connections, 1);
  });
});

describe('what a post keeps of an answer', () => {
  test('a redirect is not followed: reason "redirect not followed", status 302, and its target never connected to', async () => {
    const target = await recorder();
    const redirecting = await recorder((_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${target.port}/` }).end());
    const result = await send(`http://127.0.0.1:${redirecting.port}/`, loopbackAllowed);
    assert.equal(result.kind, 'failed');
    if (result.kind !== 'failed') return;
    assert.equal(result.reason, 'redirect not followed');
    assert.equal(result.status, 302);
    assert.equal(result.error, 'HTTP 302 (redirects are not followed)');
    assert.equal(target.connections, 0);
  });

  test('a 500 with a 5000-byte body: status 500, reason null (the status says why), body its first 1024 bytes', async () => {
    const text = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const receiver = await recorder((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(text));
    const result = await send(`http://127.0.0.1:${receiver.port}/`, loopbackAllowed);
    assert.equal(result.kind, 'failed');
    if (result.kind !== 'failed') return;
    assert.equal(result.status, 500);
    assert.equal(result.reason, null);
    assert.equal(result.error, 'HTTP 500');
    assert.equal(result.body, text.slice(0, 1024));
  });

  test('a 200 "ok": acknowledged with status 200 and body "ok"', async () => {
    const receiver = await recorder((_req, res) => res.writeHead(200).end('ok'));
    const result = await send(`http://127.0.0.1:${receiver.port}/`, loopbackAllowed);
    assert.equal(result.kind, 'acknowledged');
    if (result.kind !== 'acknowledged') return;
    assert.equal(result.status, 200);
    assert.equal(result.body, 'ok');
    assert.ok(Number.isInteger(result.durationMs) && result.durationMs >= 0);
  });

  test('an answer without a body has body null', async () => {
    const receiver = await recorder();
    const result = await send(`http://127.0.0.1:${receiver.port}/`);
    assert.equal(result.kind === 'acknowledged' && result.body, null);
  });

  test('a body that never ends does not hold the attempt past its time: it ends with the status and what was read', async () => {
    const receiver = await recorder((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const result = await send(`http://127.0.0.1:${receiver.port}/`, loopbackAllowed, 500);
    assert.equal(result.kind, 'acknowledged');
    if (result.kind !== 'acknowledged') return;
    assert.equal(result.status, 200);
    assert.equal(result.body, 'partial');
  });

  test('a closed port: reason "refused", no status', async () => {
    const closed = await recorder();
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const result = await send(`http://127.0.0.1:${closed.port}/`, loopbackAllowed);
    assert.equal(result.kind, 'failed');
    if (result.kind !== 'failed') return;
    assert.equal(result.reason, 'refused');
    assert.equal(result.error, 'request failed: ECONNREFUSED');
    assert.equal(result.status, null);
  });

  test('the request carries the JSON content type, the user agent, the given headers and a content-length', async () => {
    let seen: IncomingMessage['headers'] = {};
    const receiver = await recorder((req, res) => {
      seen = req.headers;
      res.writeHead(204).end();
    });
    await post(`http://127.0.0.1:${receiver.port}/`, '{"é":1}', { 'webhook-id': 'evt_1' }, 2000, new AbortController().signal);
    assert.equal(seen['content-type'], 'application/json');
    assert.equal(seen['user-agent'], 'user-service-webhooks');
    assert.equal(seen['webhook-id'], 'evt_1');
    assert.equal(seen['content-length'], String(Buffer.byteLength('{"é":1}')));
  });

  test('an https endpoint whose certificate no trusted CA signed: reason "tls error", and nothing acknowledged', async (t) => {
    const certificates = new Certificates();
    t.after(() => certificates.remove());
    const signed = certificates.signed('endpoint', 'localhost', certificates.ca('untrusted-ca'));
    const server = createHttpsServer({ cert: readFileSync(signed.cert), key: readFileSync(signed.key) }, (_req, res) => res.writeHead(204).end());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const result = await send(`https://127.0.0.1:${(server.address() as AddressInfo).port}/`, loopbackAllowed);
    assert.equal(result.kind, 'failed');
    if (result.kind !== 'failed') return;
    assert.equal(result.reason, 'tls error');
    assert.match(result.error, /^request failed: /);
    assert.equal(result.status, null);
  });
});
