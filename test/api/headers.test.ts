import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { portOf, request } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { literalRequest } from '../helpers/raw-request.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { assertErrorBody, JSON_CONTENT_TYPE, methodList } from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('headers');
});
after(() => service.close());

const ORIGIN = 'https://elsewhere.example';
const valid = { name: 'Header Tester', email: 'headers@example.com' };

describe('every API response is JSON in UTF-8 and allows any origin', () => {
  const rows: Array<{ rule: string; method: string; path: string; json?: unknown; body?: string; contentType?: string; status: number; error?: string }> = [
    { rule: 'list 200', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD}`, status: 200 },
    { rule: 'list 401', method: 'GET', path: '/api/users?pwd=nope', status: 401, error: 'Invalid password' },
    { rule: 'read 200', method: 'GET', path: '/api/users/1', status: 200 },
    { rule: 'read 404 User not found', method: 'GET', path: '/api/users/424242', status: 404, error: 'User not found' },
    { rule: 'create 201', method: 'POST', path: '/api/users', json: valid, status: 201 },
    { rule: 'create 400', method: 'POST', path: '/api/users', json: { name: '' }, status: 400, error: 'Name and email required' },
    { rule: 'create 400 invalid JSON', method: 'POST', path: '/api/users', body: '{', contentType: 'application/json', status: 400, error: 'Invalid JSON body' },
    { rule: 'create 415', method: 'POST', path: '/api/users', body: '{}', contentType: 'text/plain', status: 415, error: 'Content-Type must be application/json' },
    { rule: 'update 200', method: 'PUT', path: '/api/users/1', json: valid, status: 200 },
    { rule: 'update 404', method: 'PUT', path: '/api/users/424242', json: valid, status: 404, error: 'User not found' },
    { rule: 'delete 404', method: 'DELETE', path: '/api/users/424242', status: 404, error: 'User not found' },
    { rule: 'route 404', method: 'GET', path: '/api/nothing-here', status: 404, error: 'Not found' },
    { rule: 'non-API 404', method: 'GET', path: '/favicon.ico', status: 404, error: 'Not found' },
    { rule: 'non-integer id 404', method: 'GET', path: '/api/users/abc', status: 404, error: 'Not found' },
    { rule: 'method 405', method: 'POST', path: '/api/users/1', json: valid, status: 405, error: 'Method not allowed' },
    { rule: 'healthz 200', method: 'GET', path: '/healthz', status: 200 },
    { rule: 'readyz 200', method: 'GET', path: '/readyz', status: 200 },
  ];
  for (const row of rows) {
    test(`${row.rule}: ${row.method} ${row.path} -> ${row.status}, application/json; charset=utf-8, Access-Control-Allow-Origin: *`, async () => {
      const headers: Record<string, string> = { origin: ORIGIN };
      if (row.contentType) headers['content-type'] = row.contentType;
      const res = await request(service.baseUrl, row.method, row.path, {
        headers,
        ...(row.json === undefined ? {} : { json: row.json }),
        ...(row.body === undefined ? {} : { body: row.body }),
      });
      assert.equal(res.status, row.status, res.text);
      assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.notEqual(res.json, undefined, 'the body is JSON');
      if (row.status >= 400) assertErrorBody(res, row.error ?? 'an error row names its message');
    });
  }

  test('a request the HTTP parser rejects -> 400 JSON error with Access-Control-Allow-Origin: *', async () => {
    const res = await rawExchange(portOf(service.baseUrl), literalRequest('GET /api/users/1 HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    assert.equal(res.status, 400);
    assert.equal(res.headers['content-type'], JSON_CONTENT_TYPE);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.deepEqual(JSON.parse(res.text), { error: 'Malformed HTTP request' });
  });
});

describe('CORS preflight: OPTIONS to any API path -> 204 with the cross-origin headers', () => {
  // Every API method is allowed on every API path, so a browser sends the real request and its page
  // reads the real answer (a 405 JSON body) instead of an opaque CORS failure; Allow names the path's own.
  const everyMethod = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];
  const rows = [
    { path: '/api/users', requestMethod: 'POST', allow: ['GET', 'HEAD', 'OPTIONS', 'POST'] },
    { path: '/api/users', requestMethod: 'DELETE', allow: ['GET', 'HEAD', 'OPTIONS', 'POST'] },
    { path: '/api/users/1', requestMethod: 'PUT', allow: ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'] },
    { path: '/api/users/1', requestMethod: 'PATCH', allow: ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'] },
    { path: '/api/users/99999999999', requestMethod: 'DELETE', allow: ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT'] },
    { path: '/api/unknown/path', requestMethod: 'GET', allow: everyMethod },
    { path: '/api/users/abc', requestMethod: 'GET', allow: everyMethod },
  ];
  for (const { path, requestMethod, allow } of rows) {
    test(`OPTIONS ${path} for ${requestMethod} -> 204 allowing every API method, Allow: ${allow.join(', ')}, echoing the requested headers`, async () => {
      const res = await request(service.baseUrl, 'OPTIONS', path, {
        headers: {
          origin: ORIGIN,
          'access-control-request-method': requestMethod,
          'access-control-request-headers': 'content-type,x-requested-with',
        },
      });
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(methodList(res.headers.get('access-control-allow-methods')), everyMethod);
      assert.deepEqual(methodList(res.headers.get('allow')), allow);
      assert.deepEqual(methodList(res.headers.get('access-control-allow-headers')), ['content-type', 'x-requested-with']);
      assert.match(res.headers.get('access-control-max-age') ?? '', /^[1-9]\d*$/);
      assert.match(res.headers.get('vary') ?? '', /access-control-request-headers/i);
    });
  }

  /** The headers a preflight for `method` asking for `requested` is allowed, lower case and sorted. */
  const allowedHeaders = async (method: string, requested: string): Promise<string[]> => {
    const res = await request(service.baseUrl, 'OPTIONS', '/api/users/2', {
      headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': requested },
    });
    assert.equal(res.status, 204);
    return methodList(res.headers.get('access-control-allow-headers')).map((h) => h.toLowerCase());
  };

  test('a preflight asking for If-Match, If-None-Match and X-Request-Id gets each of them back', async () => {
    assert.deepEqual(await allowedHeaders('PATCH', 'content-type,if-match,if-none-match,x-request-id'), [
      'content-type',
      'if-match',
      'if-none-match',
      'x-request-id',
    ]);
  });

  test('a preflight without Access-Control-Request-Headers still allows Content-Type', async () => {
    const res = await request(service.baseUrl, 'OPTIONS', '/api/users', {
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    });
    assert.equal(res.status, 204);
    assert.ok(methodList(res.headers.get('access-control-allow-headers')).map((h) => h.toLowerCase()).includes('content-type'));
  });

  test('a preflight asking for several headers in any case gets each of them back', async () => {
    assert.deepEqual(
      await allowedHeaders('PUT', 'Content-Type, Authorization, X-Custom-Header'),
      ['authorization', 'content-type', 'x-custom-header'],
    );
  });

  test('a cross-origin POST after the preflight succeeds with Access-Control-Allow-Origin: *', async () => {
    const res = await request(service.baseUrl, 'POST', '/api/users', {
      json: { name: 'From afar', email: 'afar@example.com' },
      headers: { origin: ORIGIN },
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });
});
