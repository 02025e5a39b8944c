import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { portOf, request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { literalRequest } from '../helpers/raw-request.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

let service: RunningService;
before(async () => {
  service = await startService('trace_context');
});
after(() => service.close());

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

function parts(header: string | null | undefined): { traceId: string; spanId: string; flags: string } {
  const match = TRACEPARENT.exec(header ?? '');
  assert.ok(match, `a traceparent header, got ${header}`);
  return { traceId: match[1]!, spanId: match[2]!, flags: match[3]! };
}

function accessLine(requestId: string): Promise<Record<string, unknown>> {
  return pollUntil(
    'the access line',
    () => service.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.msg === 'request' && entry.requestId === requestId),
    { timeoutMs: 5000 },
  );
}

describe('traceparent on every response', () => {
  test('no traceparent sent -> a new trace, not sampled, named in the access line', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/users/1', { headers: { 'x-request-id': 'trace-new-1' } });
    assert.equal(res.status, 200);
    const sent = parts(res.headers.get('traceparent'));
    assert.equal(sent.flags, '00');
    const line = await accessLine('trace-new-1');
    assert.equal(line.trace_id, sent.traceId);
    assert.equal(line.span_id, sent.spanId);
  });

  test('a valid traceparent -> the same trace continued, this service\'s own span, the flag kept', async () => {
    for (const flags of ['01', '00']) {
      const id = `trace-continued-${flags}`;
      const res = await request(service.baseUrl, 'POST', '/api/users', {
        json: { name: 'Traced', email: 'traced@example.com' },
        headers: { traceparent: `00-${TRACE}-${CALLER_SPAN}-${flags}`, tracestate: 'congo=t61rcWkgMzE', 'x-request-id': id },
      });
      assert.equal(res.status, 201);
      const sent = parts(res.headers.get('traceparent'));
      assert.equal(sent.traceId, TRACE);
      assert.notEqual(sent.spanId, CALLER_SPAN);
      assert.equal(sent.flags, flags);
      const line = await accessLine(id);
      assert.equal(line.trace_id, TRACE);
      assert.equal(line.span_id, sent.spanId);
    }
  });

  test('a malformed traceparent -> ignored: the request is served in a new trace', async () => {
    const res = await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}&limit=1`, {
      headers: { traceparent: `00-${TRACE.toUpperCase()}-${CALLER_SPAN}-01` },
    });
    assert.equal(res.status, 200);
    assert.notEqual(parts(res.headers.get('traceparent')).traceId, TRACE.toLowerCase());
  });

  const answers: Array<[string, string, string, number]> = [
    ['an unknown user', 'GET', '/api/users/424242', 404],
    ['a wrong password', 'GET', '/api/users?pwd=wrong', 401],
    ['a method not allowed', 'PATCH', '/api/users', 405],
    ['a health probe', 'GET', '/healthz', 200],
    ['a preflight', 'OPTIONS', '/api/users', 204],
  ];
  for (const [what, method, path, status] of answers) {
    test(`${what} -> ${status} carries the caller's trace`, async () => {
      const res = await request(service.baseUrl, method, path, { headers: { traceparent: `00-${TRACE}-${CALLER_SPAN}-01` } });
      assert.equal(res.status, status);
      assert.equal(parts(res.headers.get('traceparent')).traceId, TRACE);
    });
  }

  test('a request the HTTP parser refuses -> its 400 written to the socket carries a traceparent too', async () => {
    const res = await rawExchange(portOf(service.baseUrl), literalRequest('GET /api/users/1 HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    assert.equal(res.status, 400);
    parts(res.headers.traceparent);
  });
});
