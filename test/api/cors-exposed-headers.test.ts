import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { portOf, request, type ApiResponse } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { literalRequest } from '../helpers/raw-request.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { methodList } from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('exposed');
});
after(() => service.close());

const EXPOSED = ['ETag', 'Idempotent-Replayed', 'Link', 'Location', 'Preference-Applied', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id', 'X-Total-Count', 'traceparent'];
const STALE = '"ffffffffffffffffffffffffffffffff"';
const user = { name: 'Exposed', email: 'exposed@example.com' };
const send = (method: string, path: string, options: { json?: unknown; headers?: Record<string, string> } = {}) => (): Promise<ApiResponse> =>
  request(service.baseUrl, method, path, options);
const currentTag = async (): Promise<string> => (await request(service.baseUrl, 'GET', '/api/users/1')).headers.get('etag')!;

const rows: Array<[rule: string, status: number, call: () => Promise<ApiResponse>]> = [
  ['list', 200, send('GET', `/api/users?pwd=${TEST_PASSWORD}`)],
  ['list page', 200, send('GET', `/api/users?pwd=${TEST_PASSWORD}&limit=2`)],
  ['list, bad limit', 400, send('GET', `/api/users?pwd=${TEST_PASSWORD}&limit=0`)],
  ['list, wrong pwd', 401, send('GET', '/api/users?pwd=wrong')],
  ['read', 200, send('GET', '/api/users/1')],
  ['read, not modified', 304, async () => send('GET', '/api/users/1', { headers: { 'if-none-match': await currentTag() } })()],
  ['read, unknown id', 404, send('GET', '/api/users/424242')],
  ['create', 201, send('POST', '/api/users', { json: user })],
  ['create, empty name', 400, send('POST', '/api/users', { json: { name: '' } })],
  ['update, stale If-Match', 412, send('PUT', '/api/users/2', { json: user, headers: { 'if-match': STALE } })],
  ['patch', 200, send('PATCH', '/api/users/2', { json: { name: 'Patched' } })],
  ['method not allowed', 405, send('PATCH', '/api/users')],
  ['no route', 404, send('GET', '/api/nothing')],
  ['healthz', 200, send('GET', '/healthz')],
];

for (const [rule, status, call] of rows) {
  test(`${rule} -> ${status} with Access-Control-Expose-Headers naming ${EXPOSED.join(', ')}`, async () => {
    const res = await call();
    assert.equal(res.status, status, res.text);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(methodList(res.headers.get('access-control-expose-headers')), EXPOSED);
  });
}

test('a request the HTTP parser rejects -> 400 written to the socket, with the same Access-Control-Expose-Headers', async () => {
  const res = await rawExchange(portOf(service.baseUrl), literalRequest('GET /api/users/1 HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
  assert.equal(res.status, 400);
  assert.deepEqual(methodList(res.headers['access-control-expose-headers']), EXPOSED);
});
