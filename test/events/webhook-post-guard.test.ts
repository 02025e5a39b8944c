import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AddressGuard } from '../../src/events/webhooks/address-guard.js';
import { post } from '../../src/events/webhooks/post.js';

/** A receiver on 127.0.0.1 that counts every connection it accepts and answers as `answer` says. */
async function listening(answer: (path: string) => [number, Record<string, string>]): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    const [status, headers] = answer(req.url!);
    res.writeHead(status, headers).end();
  });
  server.on('connection', (_socket: Socket) => count++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => count };
}

describe('no request of an API endpoint reaches the operator network', () => {
  let target: Awaited<ReturnType<typeof listening>>;
  let second: Awaited<ReturnType<typeof listening>>;
  const strict = new AddressGuard([]);
  const local = new AddressGuard(['127.0.0.0/8', '::1/128']);
  const stop = new AbortController().signal;

  before(async () => {
    second = await listening(() => [204, {}]);
    target = await listening((path) => (path === '/moved' ? [302, { location: `http://127.0.0.1:${second.port}/` }] : [204, {}]));
  });
  after(() => {
    for (const { server } of [target, second]) {
      server.closeAllConnections();
      server.close();
    }
  });

  test('every spelling of a loopback host fails with "address not allowed" and makes no connection', async () => {
    for (const host of ['localhost', '127.1', '2130706433', '0x7f000001', '[::ffff:127.0.0.1]', '127.0.0.1']) {
      const result = await post(`http://${host}:${target.port}/`, '{}', {}, 2000, stop, { guard: strict });
      assert.equal(result.kind === 'failed' && result.reason, 'address not allowed', host);
    }
    assert.equal(target.connections(), 0);
  });

  test('with the allow-list the same receiver is reached', async () => {
    const result = await post(`http://localhost:${target.port}/`, '{}', {}, 2000, stop, { guard: local });
    assert.equal(result.kind, 'acknowledged');
    assert.ok(target.connections() > 0);
  });

  test('a redirect is not followed: the second receiver is never reached', async () => {
    const result = await post(`http://127.0.0.1:${target.port}/moved`, '{}', {}, 2000, stop, { guard: local });
    assert.equal(result.kind === 'failed' && result.reason, 'redirect not followed');
    assert.equal(result.kind === 'failed' && result.status, 302);
    assert.equal(second.connections(), 0);
  });

  test('without a guard (the WEBHOOK_URLS of the operator) a loopback receiver is reached', async () => {
    assert.equal((await post(`http://127.0.0.1:${target.port}/`, '{}', {}, 2000, stop)).kind, 'acknowledged');
  });
});
