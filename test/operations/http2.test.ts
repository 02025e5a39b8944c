import assert from 'node:assert/strict';
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Certificates } from '../helpers/certificates.js';
import { secureRequest } from '../helpers/https-client.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

const certificates = new Certificates();
const ca = certificates.ca('h2-ca');
const server = certificates.signed('h2-server', 'localhost', ca);
const caPem = readFileSync(ca.cert);
after(() => certificates.remove());

interface H2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function h2(session: ClientHttp2Session, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
    let answer: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (given) => (answer = given));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ status: Number(answer[':status']), headers: answer, body: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', reject);
    stream.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('HTTP/2 over TLS (ALPN h2), HTTP/1.1 still served on the same port', () => {
  let service: RunningService;
  let session: ClientHttp2Session;
  before(async () => {
    service = await startService('h2', { tls: { certFile: server.cert, keyFile: server.key }, metrics: { onApiPort: true }, events: { retentionSeconds: 86_400, webhooks: undefined } });
    session = connect(service.baseUrl, { ca: caPem });
    await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
  });
  after(async () => {
    session.close();
    await service.close();
  });

  test('ALPN offers h2 and the client gets it', () => {
    assert.equal((session.socket as unknown as { alpnProtocol: string }).alpnProtocol, 'h2');
  });

  test('every route answers over HTTP/2 as over HTTP/1.1: same statuses and bodies, X-Request-Id, traceparent and CORS headers', async () => {
    const created = await h2(session, 'POST', '/api/users', { name: 'Two', email: 'two@h2.example' });
    assert.equal(created.status, 201);
    assert.deepEqual(JSON.parse(created.body), { message: 'User created successfully' });
    const id = Number(String(created.headers.location).split('/').pop());
    const cases: Array<[string, string, unknown, number]> = [
      ['GET', `/api/users/${id}`, undefined, 200],
      ['GET', `/api/users?pwd=${TEST_PASSWORD}`, undefined, 200],
      ['GET', `/api/users?pwd=${TEST_PASSWORD}&limit=2`, undefined, 200],
      ['GET', '/api/users?pwd=wrong', undefined, 401],
      ['PUT', `/api/users/${id}`, { name: 'Two Put', email: 'two@h2.example' }, 200],
      ['PATCH', `/api/users/${id}`, { name: 'Two Patched' }, 200],
      ['GET', '/api/users/424242', undefined, 404],
      ['PATCH', '/api/users', undefined, 405],
      ['POST', '/api/users', { name: '' }, 400],
      ['GET', '/healthz', undefined, 200],
      ['GET', '/readyz', undefined, 200],
      ['GET', '/metrics', undefined, 200],
      ['GET', '/openapi.json', undefined, 200],
      ['GET', '/apidocs/', undefined, 200],
    ];
    for (const [method, path, body, status] of cases) {
      const two = await h2(session, method, path, body);
      const one = await secureRequest(`${service.baseUrl}${path}`, { ca: caPem, method, ...(body === undefined ? {} : { body }) });
      assert.equal(two.status, status, `${method} ${path} over HTTP/2`);
      assert.equal(one.status, status, `${method} ${path} over HTTP/1.1`);
      if (path.startsWith('/api/') && !path.includes('pwd=') ) assert.equal(two.body, one.body, `${method} ${path}: the same body`);
      assert.match(String(two.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.match(String(two.headers.traceparent), /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
      if (path.startsWith('/api/')) assert.equal(two.headers['access-control-allow-origin'], '*');
      assert.equal(two.headers.connection, undefined, 'no connection header in HTTP/2');
    }
    const deleted = await h2(session, 'DELETE', `/api/users/${id}`);
    assert.equal(deleted.status, 200);
    assert.equal((await h2(session, 'GET', `/api/users/${id}`)).status, 404);
  });

  test('twenty event streams on one connection (a browser holds six per origin over HTTP/1.1) each get the next event', async () => {
    const streams = Array.from({ length: 20 }, () => session.request({ ':method': 'GET', ':path': `/api/users/events?pwd=${TEST_PASSWORD}`, accept: 'text/event-stream' }));
    const statuses = await Promise.all(streams.map((stream) => new Promise<number>((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status']))))));
    assert.deepEqual(statuses, Array(20).fill(200));
    const seen = streams.map(
      (stream) =>
        new Promise<string>((resolve) => {
          let text = '';
          stream.setEncoding('utf8');
          stream.on('data', (chunk: string) => {
            text += chunk;
            const match = /data: (\{.*"type":"user\.created".*\})\n/.exec(text);
            if (match) resolve(match[1]!);
          });
        }),
    );
    const created = await h2(session, 'POST', '/api/users', { name: 'Streamed Two', email: 'streamed@h2.example' });
    assert.equal(created.status, 201);
    const events = (await Promise.all(seen)).map((data) => JSON.parse(data) as { data: { email: string } });
    for (const event of events) assert.equal(event.data.email, 'streamed@h2.example');
    for (const stream of streams) stream.close();
  });
});
