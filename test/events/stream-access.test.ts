import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { hs256Token, SECRET } from '../helpers/jwt.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { SseClient } from './support/sse-client.js';

const EVENTS_ON = { retentionSeconds: 86_400, webhooks: undefined };
const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;

/** A refusal as a client sees it, for comparing the stream's with the list's. */
async function refusal(service: RunningService, path: string, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await request(service.baseUrl, 'GET', path, { headers });
  return { status: res.status, type: res.headers.get('content-type'), body: res.text, challenge: res.headers.get('www-authenticate'), retry: res.headers.get('retry-after') };
}

describe('the stream behind AUTH=all: a bearer token with users:read, or pwd, as on the list', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_auth', { events: EVENTS_ON, auth: { mode: 'all', jwt: { secret: SECRET } } });
  });
  after(() => service?.close());

  test('a token with users:read opens the stream and receives the events', async () => {
    const token = await hs256Token({ scope: 'users:read users:write' });
    const stream = await SseClient.open(service.baseUrl, '/api/users/events', { authorization: `Bearer ${token}` });
    try {
      assert.equal(stream.status, 200);
      const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Token', email: 'token@events.example' }, headers: { authorization: `Bearer ${token}`, 'x-request-id': 'by-token' } });
      assert.equal(res.status, 201);
      assert.equal((await stream.nextEvent())?.data.request_id, 'by-token');
    } finally {
      stream.close();
    }
  });

  test('a token without users:read -> 403, an invalid token -> 401, no credential -> 401: the list\'s answers', async () => {
    const writeOnly = await hs256Token({ scope: 'users:write' });
    for (const authorization of [`Bearer ${writeOnly}`, 'Bearer not-a-token', undefined]) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      const list = await refusal(service, '/api/users', headers);
      assert.deepEqual(await refusal(service, '/api/users/events', headers), list);
      assert.ok([401, 403].includes((list as { status: number }).status));
    }
  });

  test('pwd still opens it when no token is sent', async () => {
    const stream = await SseClient.open(service.baseUrl, STREAM);
    try {
      assert.equal(stream.status, 200);
    } finally {
      stream.close();
    }
  });
});

describe('the stream and the list share one guessing limit', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_guess', { events: EVENTS_ON, guessing: { maxFailures: 3, windowSeconds: 600 } });
  });
  after(() => service?.close());

  test('wrong passwords on the stream and the list count together: past the limit both answer 429 with Retry-After', async () => {
    assert.equal((await request(service.baseUrl, 'GET', '/api/users/events?pwd=wrong')).status, 401);
    assert.equal((await request(service.baseUrl, 'GET', '/api/users?pwd=wrong')).status, 401);
    assert.equal((await request(service.baseUrl, 'GET', '/api/users/events?pwd=wrong')).status, 401);
    for (const path of [STREAM, `/api/users?pwd=${TEST_PASSWORD}`]) {
      const res = await request(service.baseUrl, 'GET', path);
      assert.deepEqual([res.status, res.json], [429, { error: 'Too many failed attempts' }], path);
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
    }
  });
});

describe('with EVENTS off (the default)', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_off');
  });
  after(() => service?.close());

  test('GET /api/users/events is an unknown path: 404 exactly as any other non-id segment', async () => {
    const other = await request(service.baseUrl, 'GET', `/api/users/eventz?pwd=${TEST_PASSWORD}`);
    const res = await request(service.baseUrl, 'GET', STREAM);
    assert.deepEqual([res.status, res.text], [other.status, other.text]);
    assert.equal(res.status, 404);
  });
});
