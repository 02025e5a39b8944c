import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AuthMode } from '../../src/config/auth-settings.js';
import { request, type ApiResponse } from '../helpers/http.js';
import { hs256Token, SECRET } from '../helpers/jwt.js';
import { keyNew, type ApiKey } from '../helpers/key-new.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { assertDocumented } from '../openapi/conformance.js';
import { describeApi, type ApiDescription, type OpenApiDocument } from '../openapi/document.js';
import { SseClient } from './support/sse-client.js';

const EVENTS_ON = { retentionSeconds: 86_400, webhooks: undefined };
const STREAM = '/api/users/events';
const WITH_PASSWORD = `${STREAM}?pwd=${TEST_PASSWORD}`;
const REALM = 'Bearer realm="users"';
const BAD_TOKEN = 'usk_not-a-key-this-service-knows-of-at-all-000000';

const dir = mkdtempSync(join(tmpdir(), 'stream-events-read-'));
const keysFile = join(dir, 'api-keys');
/** events:read alone: the integrator's key. */
let eventsKey: ApiKey;
/** users:write alone: neither scope that reads. */
let writeKey: ApiKey;
/** users:read, users:write: creates the users whose events are read. */
let adminKey: ApiKey;

before(async () => {
  [eventsKey, writeKey, adminKey] = await Promise.all([keyNew('integrator', 'events:read'), keyNew('writer', 'users:write'), keyNew('admin', 'users:read,users:write')]);
  writeFileSync(keysFile, `${[eventsKey, writeKey, adminKey].map((k) => k.line).join('\n')}\n`);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const bearer = (token: string | undefined): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

/** A refusal as a client sees it, for comparing answers with and without a token. */
async function refusal(service: RunningService, path: string, token?: string): Promise<{ status: number; body: string; challenge: string | null }> {
  const res = await request(service.baseUrl, 'GET', path, { headers: bearer(token) });
  return { status: res.status, body: res.text, challenge: res.headers.get('www-authenticate') };
}

/** Opens the stream, writes a user with the admin key, and resolves with the request id of the event that arrived. */
async function eventThrough(service: RunningService, path: string, token: string | undefined, requestId: string): Promise<string | null | undefined> {
  const stream = await SseClient.open(service.baseUrl, path, bearer(token));
  try {
    assert.equal(stream.status, 200, await (stream.status === 200 ? Promise.resolve('') : stream.text()));
    const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: requestId, email: `${requestId}@events.example` }, headers: { ...bearer(adminKey.key), 'x-request-id': requestId } });
    assert.equal(res.status, 201);
    return (await stream.nextEvent())?.data.request_id;
  } finally {
    stream.close();
  }
}

/** The head and first bytes of a stream, then a hang-up: what assertDocumented checks of a 200. */
async function opened(baseUrl: string, path: string, token?: string): Promise<ApiResponse> {
  const hangUp = new AbortController();
  const response = await fetch(baseUrl + path, { headers: bearer(token), signal: hangUp.signal });
  const first = await response.body!.getReader().read();
  hangUp.abort();
  return { status: response.status, headers: response.headers, text: Buffer.from(first.value ?? []).toString('utf8'), json: undefined };
}

/** The real answer is documented exactly in the description the service serves. */
function documented(api: ApiDescription, rule: string, res: ApiResponse, example?: string): void {
  assertDocumented(api, { rule, operationId: 'streamUserEvents', status: res.status, ...(example ? { example } : {}), setup: 'normal', send: () => Promise.resolve(res) }, res);
}

for (const mode of ['writes', 'all'] as const satisfies readonly AuthMode[]) {
  describe(`AUTH=${mode}: a bearer token with events:read reads the stream without pwd`, () => {
    let service: RunningService;
    let api: ApiDescription;
    before(async () => {
      service = await startService(`stream_events_read_${mode}`, { events: EVENTS_ON, auth: { mode, apiKeysFile: keysFile, jwt: { secret: SECRET } } });
      api = describeApi((await request(service.baseUrl, 'GET', '/openapi.json')).json as OpenApiDocument);
    });
    after(() => service?.close());

    test(`AUTH=${mode}: an API key with events:read alone opens the stream without pwd and receives the events`, async () => {
      assert.equal(await eventThrough(service, STREAM, eventsKey.key, `${mode}-key`), `${mode}-key`);
      documented(api, 'a token with events:read -> 200', await opened(service.baseUrl, STREAM, eventsKey.key));
    });

    test(`AUTH=${mode}: a JWT whose scope holds events:read opens it too, with types= as any stream`, async () => {
      const token = await hs256Token({ scope: 'events:read' });
      assert.equal(await eventThrough(service, `${STREAM}?types=user.created`, token, `${mode}-jwt`), `${mode}-jwt`);
    });

    test(`AUTH=${mode}: pwd still opens it without a token`, async () => {
      assert.equal(await eventThrough(service, WITH_PASSWORD, undefined, `${mode}-pwd`), `${mode}-pwd`);
    });

    test(`AUTH=${mode}: events:read opens the stream only: the list and a user still need what they needed`, async () => {
      const list = await refusal(service, '/api/users', eventsKey.key);
      assert.equal(list.status, mode === 'all' ? 403 : 401, list.body);
      if (mode === 'all') assert.equal((await refusal(service, '/api/users/1', eventsKey.key)).status, 403);
      const write = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'No', email: 'no@events.example' }, headers: bearer(eventsKey.key) });
      assert.deepEqual([write.status, write.headers.get('www-authenticate')], [403, `${REALM}, error="insufficient_scope", scope="users:write"`]);
    });
  });
}

describe('AUTH=writes: a token that does not let in leaves it to pwd, exactly as when tokens were not looked at on the stream', () => {
  let service: RunningService;
  let api: ApiDescription;
  before(async () => {
    service = await startService('stream_events_read_writes_refused', { events: EVENTS_ON, auth: { mode: 'writes', apiKeysFile: keysFile } });
    api = describeApi((await request(service.baseUrl, 'GET', '/openapi.json')).json as OpenApiDocument);
  });
  after(() => service?.close());

  test('without pwd, a token without events:read or one not valid gets what no credential gets: 401 Invalid password, no challenge', async () => {
    const none = await refusal(service, STREAM);
    assert.deepEqual(none, { status: 401, body: '{"error":"Invalid password"}', challenge: null });
    for (const token of [writeKey.key, adminKey.key, BAD_TOKEN]) assert.deepEqual(await refusal(service, STREAM, token), none, token.slice(0, 12));
    const res = await request(service.baseUrl, 'GET', STREAM, { headers: bearer(writeKey.key) });
    documented(api, 'AUTH=writes: a token without events:read and no pwd -> 401 invalidPassword', res, 'invalidPassword');
  });

  test('with the right pwd, a token without events:read or one not valid still opens the stream', async () => {
    for (const token of [writeKey.key, BAD_TOKEN]) assert.equal(await eventThrough(service, WITH_PASSWORD, token, `pwd-${token.slice(4, 10)}`), `pwd-${token.slice(4, 10)}`);
  });
});

describe('AUTH=all: a token is judged alone, as on the list; events:read is one more scope it accepts', () => {
  let service: RunningService;
  let api: ApiDescription;
  before(async () => {
    service = await startService('stream_events_read_all_refused', { events: EVENTS_ON, auth: { mode: 'all', apiKeysFile: keysFile } });
    api = describeApi((await request(service.baseUrl, 'GET', '/openapi.json')).json as OpenApiDocument);
  });
  after(() => service?.close());

  test('a token with users:read still opens the stream', async () => {
    assert.equal(await eventThrough(service, STREAM, adminKey.key, 'all-users-read'), 'all-users-read');
  });

  test('a token with neither scope -> 403 naming users:read, one not valid -> 401 invalid_token, none -> 401 Invalid password: the list\'s answers, as before', async () => {
    const cases: Array<[token: string | undefined, status: number, example: string]> = [
      [writeKey.key, 403, 'insufficientScope'],
      [BAD_TOKEN, 401, 'invalidToken'],
      [undefined, 401, 'invalidPassword'],
    ];
    for (const [token, status, example] of cases) {
      const stream = await refusal(service, STREAM, token);
      assert.deepEqual(stream, await refusal(service, '/api/users', token));
      assert.equal(stream.status, status);
      const res = await request(service.baseUrl, 'GET', STREAM, { headers: bearer(token) });
      documented(api, `AUTH=all: ${example}`, res, example);
    }
    assert.equal((await refusal(service, STREAM, writeKey.key)).challenge, `${REALM}, error="insufficient_scope", scope="users:read"`);
  });

  test('a token without either scope is refused even with the right pwd, as on the list', async () => {
    const res = await request(service.baseUrl, 'GET', WITH_PASSWORD, { headers: bearer(writeKey.key) });
    assert.equal(res.status, 403);
  });
});

describe('AUTH=off: a bearer token changes nothing on the stream', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('stream_events_read_off', { events: EVENTS_ON });
  });
  after(() => service?.close());

  test('without pwd any token is 401 Invalid password; with pwd the stream opens', async () => {
    const none = await refusal(service, STREAM);
    assert.deepEqual(none, { status: 401, body: '{"error":"Invalid password"}', challenge: null });
    assert.deepEqual(await refusal(service, STREAM, eventsKey.key), none);
    assert.equal(await eventThrough(service, WITH_PASSWORD, eventsKey.key, 'off-pwd'), 'off-pwd');
  });
});
