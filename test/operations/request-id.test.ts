import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { portOf, request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { literalRequest, rawRequest } from '../helpers/raw-request.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

let service: RunningService;
before(async () => {
  service = await startService('request_id');
});
after(() => service.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function logEntries(): Array<Record<string, unknown>> {
  return service.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Log lines are written when the response closes, which can be just after the client has it. */
function logged(predicate: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return pollUntil('the log line', () => logEntries().find(predicate), { timeoutMs: 5000 });
}

describe('X-Request-Id: the client\'s own when acceptable', () => {
  const kept = [
    ['a short token', 'abc-123'],
    ['every visible ASCII character', Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('')],
    ['exactly 200 characters', 'x'.repeat(200)],
  ];
  for (const [what, id] of kept) {
    test(`${what} -> echoed unchanged`, async () => {
      const res = await request(service.baseUrl, 'GET', '/api/users/1', { headers: { 'x-request-id': id! } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-request-id'), id);
    });
  }

  const replaced: Array<[string, string]> = [
    ['empty', ''],
    ['201 characters', 'x'.repeat(201)],
    ['with a space', 'a b'],
    ['with a tab', 'a\tb'],
    ['with a byte above ASCII', 'caf\xe9'],
  ];
  for (const [what, id] of replaced) {
    test(`${what} -> replaced by a fresh random id`, async () => {
      const res = await rawExchange(
        portOf(service.baseUrl),
        rawRequest('GET', '/api/users/1', { headers: [['X-Request-Id', id]] }),
      );
      assert.equal(res.status, 200);
      assert.match(res.headers['x-request-id'] ?? '', UUID);
    });
  }

  test('no header -> a fresh id, different on every request', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await request(service.baseUrl, 'GET', '/healthz');
      assert.match(res.headers.get('x-request-id') ?? '', UUID);
      ids.add(res.headers.get('x-request-id')!);
    }
    assert.equal(ids.size, 20);
  });

  test('a page from another origin may read it (Access-Control-Expose-Headers)', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/users/1', { headers: { origin: 'https://elsewhere.example' } });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    assert.ok(exposed.includes('x-request-id'), String(exposed));
    assert.ok(exposed.includes('retry-after'), String(exposed));
  });
});

describe('every response carries X-Request-Id', () => {
  const rows: Array<{ rule: string; method: string; path: string; json?: unknown; status: number }> = [
    { rule: 'list 200', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD}`, status: 200 },
    { rule: 'list 401', method: 'GET', path: '/api/users?pwd=nope', status: 401 },
    { rule: 'read 404', method: 'GET', path: '/api/users/424242', status: 404 },
    { rule: 'create 201', method: 'POST', path: '/api/users', json: { name: 'Id', email: 'id@example.com' }, status: 201 },
    { rule: 'create 400', method: 'POST', path: '/api/users', json: {}, status: 400 },
    { rule: 'method 405', method: 'POST', path: '/api/users/1', status: 405 },
    { rule: 'preflight 204', method: 'OPTIONS', path: '/api/users/1', status: 204 },
    { rule: 'unknown path 404', method: 'GET', path: '/nowhere', status: 404 },
    { rule: 'docs page 200', method: 'GET', path: '/apidocs/', status: 200 },
    { rule: 'openapi.json 200', method: 'GET', path: '/openapi.json', status: 200 },
    { rule: 'readyz 200', method: 'GET', path: '/readyz', status: 200 },
  ];
  for (const row of rows) {
    test(`${row.rule}: ${row.method} ${row.path} -> the id sent comes back`, async () => {
      const id = `row-${row.rule.replaceAll(' ', '-')}`;
      const res = await request(service.baseUrl, row.method, row.path, {
        headers: { 'x-request-id': id },
        ...(row.json === undefined ? {} : { json: row.json }),
      });
      assert.equal(res.status, row.status, res.text);
      assert.equal(res.headers.get('x-request-id'), id);
    });
  }

  test('/docs redirect 301 carries one', async () => {
    const res = await fetch(`${service.baseUrl}/docs`, { redirect: 'manual', headers: { 'x-request-id': 'redirect-1' } });
    await res.body?.cancel();
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '/apidocs/');
    assert.equal(res.headers.get('x-request-id'), 'redirect-1');
  });

  const socketLevel: Array<[string, string, number]> = [
    ['a request the HTTP parser rejects', 'GET /api/users/1 HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400],
    ['an unsupported Expect header', 'GET /api/users/1 HTTP/1.1\r\nHost: x\r\nExpect: tea\r\n\r\n', 417],
    ['a DEL in X-Request-Id (refused by the HTTP parser)', 'GET /api/users/1 HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\x7fb\r\n\r\n', 400],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405],
  ];
  for (const [what, text, status] of socketLevel) {
    test(`${what} -> ${status} with a fresh id`, async () => {
      const res = await rawExchange(portOf(service.baseUrl), literalRequest(text));
      assert.equal(res.status, status);
      assert.match(res.headers['x-request-id'] ?? '', UUID);
    });
  }
});

describe('the log names the request id', () => {
  test('the access line of a request carries the id its response carried', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/users/2?logged-id');
    const id = res.headers.get('x-request-id');
    const line = await logged((entry) => entry.msg === 'request' && entry.path === '/api/users/2?logged-id');
    assert.equal(line.requestId, id);
  });

  test('a failing request: its access line and its error line both carry the id the client saw', async () => {
    await service.db.query('RENAME TABLE users TO users_away');
    let res;
    try {
      res = await request(service.baseUrl, 'GET', '/api/users/3?failing', { headers: { 'x-request-id': 'find-me-42' } });
    } finally {
      await service.db.query('RENAME TABLE users_away TO users');
    }
    assert.deepEqual([res.status, res.json], [500, { error: 'Database error' }]);
    assert.equal(res.headers.get('x-request-id'), 'find-me-42');
    const access = await logged((entry) => entry.msg === 'request' && entry.path === '/api/users/3?failing');
    assert.equal(access.requestId, 'find-me-42');
    assert.equal(access.status, 500);
    const error = await logged((entry) => entry.level === 'error' && entry.requestId === 'find-me-42');
    assert.equal(error.msg, 'request failed');
    assert.equal(error.path, '/api/users/3');
  });
});
