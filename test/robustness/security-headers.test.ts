import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rawExchange } from '../helpers/raw-exchange.js';
import { jsonRequest, rawRequest, type RawRequest } from '../helpers/raw-request.js';
import type { RawResponse } from '../helpers/raw-response.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

let service: RunningService;
let port: number;
before(async () => {
  service = await startService('security_headers');
  port = Number(new URL(service.baseUrl).port);
});
after(() => service.close());

const send = (request: RawRequest): Promise<RawResponse> => rawExchange(port, request);
const user = (email: string) => JSON.stringify({ name: 'Header Check', email });

/** One request per kind of API answer, from success to the HTTP parser's own refusals. */
const apiAnswers: ReadonlyArray<readonly [string, number, () => RawRequest]> = [
  ['list', 200, () => rawRequest('GET', `/api/users?pwd=${TEST_PASSWORD}`)],
  ['list, HEAD', 200, () => rawRequest('HEAD', `/api/users?pwd=${TEST_PASSWORD}`)],
  ['list, wrong password', 401, () => rawRequest('GET', '/api/users?pwd=wrong')],
  ['read', 200, () => rawRequest('GET', '/api/users/1')],
  ['read, unknown id', 404, () => rawRequest('GET', '/api/users/424242')],
  ['create', 201, () => jsonRequest('POST', '/api/users', user('headers-create@example.com'))],
  ['create, empty name', 400, () => jsonRequest('POST', '/api/users', '{"name":"","email":"x@example.com"}')],
  ['create, wrong media type', 415, () => rawRequest('POST', '/api/users', { headers: [['Content-Type', 'text/plain']], body: '{}' })],
  ['create, too large', 413, () => jsonRequest('POST', '/api/users', ' '.repeat(1024 * 1024 + 1))],
  ['update', 200, () => jsonRequest('PUT', '/api/users/2', user('headers-update@example.com'))],
  ['delete', 200, () => rawRequest('DELETE', '/api/users/3')],
  ['unknown API path', 404, () => rawRequest('GET', '/api/nothing')],
  ['method not allowed', 405, () => rawRequest('POST', '/api/users/1')],
  ['CORS preflight', 204, () => rawRequest('OPTIONS', '/api/users/1', { headers: [['Origin', 'https://elsewhere.example'], ['Access-Control-Request-Method', 'PUT']] })],
  ['headers too large', 431, () => rawRequest('GET', '/api/users/1', { headers: [['X-Big', 'a'.repeat(20_000)]] })],
  ['malformed request', 400, () => ({ parts: [Buffer.from('GET /api/users/1 HTTP/1.1\r\nBad Header\r\n\r\n')] })],
];

describe('security headers', () => {
  for (const [what, status, build] of apiAnswers) {
    test(`API ${what} (${status}): X-Content-Type-Options: nosniff, Cache-Control: no-store, no X-Powered-By or Server`, async () => {
      const res = await send(build());
      assert.equal(res.status, status, res.text);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-powered-by'], undefined);
      assert.equal(res.headers.server, undefined);
    });
  }

  test('API storage failure (500): nosniff and no-store too', async () => {
    await service.db.query('RENAME TABLE users TO users_away');
    try {
      const res = await send(rawRequest('GET', '/api/users/1'));
      assert.deepEqual([res.status, res.body.toString('utf8')], [500, '{"error":"Database error"}']);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['cache-control'], 'no-store');
    } finally {
      await service.db.query('RENAME TABLE users_away TO users');
    }
  });

  const nonApi: Array<[path: string, status: number]> = [
    ['/healthz', 200],
    ['/readyz', 200],
    ['/openapi.json', 200],
    ['/apidocs/', 200],
    ['/apidocs/swagger-ui.css', 200],
    ['/docs', 301],
  ];
  for (const [path, status] of nonApi) {
    test(`${path} (${status}): no X-Powered-By or Server, and nosniff on every body`, async () => {
      const res = await send(rawRequest('GET', path));
      assert.equal(res.status, status, res.body.toString('utf8'));
      assert.equal(res.headers['x-powered-by'], undefined);
      assert.equal(res.headers.server, undefined);
      if (res.body.length > 0) assert.equal(res.headers['x-content-type-options'], 'nosniff');
    });
  }

  for (const path of ['/apidocs', '/apidocs/', '/apidocs/index.html']) {
    test(`${path}: a Content-Security-Policy that allows only this origin and no inline or eval script`, async () => {
      const res = await send(rawRequest('GET', path));
      assert.equal(res.status, 200);
      const policy = res.headers['content-security-policy'];
      assert.ok(policy, 'the docs page has a Content-Security-Policy');
      const directives = new Map(
        policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name = '', ...sources]) => [name, sources] as const),
      );
      assert.deepEqual(directives.get('default-src'), ["'self'"]);
      assert.deepEqual(directives.get('script-src'), ["'self'"], 'scripts only from this origin: no inline, no eval');
      assert.deepEqual(directives.get('connect-src'), ["'self'"], '"Try it out" may call this origin only');
      assert.deepEqual(directives.get('object-src'), ["'none'"]);
      assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], 'the page cannot be framed (clickjacking)');
      assert.ok(directives.has('base-uri'), 'base-uri is restricted');
      for (const [name, sources] of directives) {
        for (const source of sources) assert.doesNotMatch(source, /^(\*|https?:|http:\/\/|https:\/\/)/, `${name} allows ${source}`);
      }
    });
  }
});
