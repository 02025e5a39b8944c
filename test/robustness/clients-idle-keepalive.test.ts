import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serverLimits } from '../../src/http/server.js';
import { MAX_BODY_BYTES } from '../../src/http/body.js';
import { request } from '../helpers/http.js';
import { parseResponse, type ParsedResponse } from '../helpers/raw-response.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

const IDLE_CONNECTIONS = 1000;
/** Both ends of every connection live in this process, plus the pool, the runner and some slack. */
const FDS_NEEDED = IDLE_CONNECTIONS * 2 + 200;
const fdLimit = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
const skip = Number.isFinite(fdLimit) && fdLimit < FDS_NEEDED ? `needs ${FDS_NEEDED} open files, ulimit -n is ${fdLimit}` : false;

let service: RunningService;
let port: number;
const idle: Socket[] = [];
before(async () => {
  service = await startService('clients_idle');
  port = Number(new URL(service.baseUrl).port);
});
after(async () => {
  for (const socket of idle) socket.destroy();
  await service.close();
});

/** Writes one request on an open socket and resolves with the response; rejects if the socket closes first. */
function exchange(socket: Socket, request: string): Promise<ParsedResponse> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onClose = (): void => reject(new Error('the connection was closed'));
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const res = parseResponse(received, false, false);
      if (!res) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(res);
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(request);
  });
}

/** Opens a connection, makes one keep-alive request on it and leaves it open and idle. */
async function idleAfterOneRequest(): Promise<Socket> {
  const socket = connect({ port, host: '127.0.0.1' });
  const res = await new Promise<ParsedResponse>((resolve, reject) => {
    socket.once('error', reject);
    exchange(socket, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n').then(resolve, reject);
  });
  if (res.status === 200 && res.headers.connection === 'keep-alive') return socket;
  throw new Error(`unexpected answer ${res.status} ${res.headers.connection}`);
}

/** One more request on a connection that sat idle. */
async function reuse(socket: Socket): Promise<number> {
  return (await exchange(socket, 'GET /api/users/1 HTTP/1.1\r\nHost: x\r\n\r\n')).status;
}

describe('server limits', () => {
  test('the production limits are set on the server explicitly', () => {
    const { server } = service.app.http;
    assert.equal(server.headersTimeout, serverLimits.headersTimeoutMs);
    assert.equal(server.requestTimeout, serverLimits.requestTimeoutMs);
    assert.equal(server.keepAliveTimeout, serverLimits.keepAliveTimeoutMs);
    // Node copies the option onto the server; @types/node does not declare the property.
    assert.equal((server as typeof server & { maxHeaderSize?: number }).maxHeaderSize, serverLimits.maxHeaderBytes);
    assert.ok(serverLimits.headersTimeoutMs <= serverLimits.requestTimeoutMs, 'headers must fit in the request time');
    assert.ok(serverLimits.keepAliveTimeoutMs > 60_000, 'above the 60 s idle timeout of common load balancers');
    assert.equal(MAX_BODY_BYTES, 1024 * 1024);
  });
});

describe(`${IDLE_CONNECTIONS} concurrent idle keep-alive connections`, { skip }, () => {
  before(async () => {
    for (let opened = 0; opened < IDLE_CONNECTIONS; opened += 100) {
      idle.push(...(await Promise.all(Array.from({ length: 100 }, idleAfterOneRequest))));
    }
  });

  test('all of them stay open', async () => {
    const open = idle.filter((socket) => !socket.destroyed && socket.readable).length;
    assert.equal(open, IDLE_CONNECTIONS);
    const serverSide = await new Promise<number>((resolve, reject) =>
      service.app.http.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
    assert.ok(serverSide >= IDLE_CONNECTIONS, `the server holds ${serverSide} connections`);
  });

  test('new clients are still served: reads, creates and the list, 50 at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        if (i % 5 === 0) return request(service.baseUrl, 'POST', '/api/users', { json: { name: `New ${i}`, email: `new${i}@example.com` } });
        if (i % 5 === 1) return request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
        return request(service.baseUrl, 'GET', `/api/users/${(i % 10) + 1}`);
      }),
    );
    for (const [i, res] of results.entries()) assert.equal(res.status, i % 5 === 0 ? 201 : 200, `request ${i}`);
  });

  test('the idle connections themselves can still be used', async () => {
    const statuses = await Promise.all(idle.filter((_, i) => i % 100 === 0).map(reuse));
    assert.deepEqual(statuses, Array(IDLE_CONNECTIONS / 100).fill(200));
  });
});
