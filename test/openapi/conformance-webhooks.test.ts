import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { request, type ApiResponse } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';
import { adminKeys, endpointWebhooks, type AdminKeys } from '../events/support/endpoint-admin.js';
import { refusedRequests } from './bad-requests.js';
import type { Case, Setup } from './cases.js';
import { assertDocumented } from './conformance.js';
import { describeApi, responseKey, type ApiDescription, type OpenApiDocument } from './document.js';

/**
 * The webhook endpoint operations need a token with webhooks:admin whatever the mode, so their
 * answers are proven here, with AUTH=all and EVENTS=on: every documented status and example of
 * every one of them is provoked by a real request and matches the served description exactly
 * (AUTH=off's 403 is proven by the contract's conformance suite).
 */
const BASE = '/api/webhooks/endpoints';
const REALM = 'Bearer realm="users"';
const ABSENT = 999_999;
const BAD_TOKEN = 'usk_not-a-key-this-service-knows-of-at-all-000000';
/** Endpoints of these cases: a closed port on loopback (allowed here), so a delivery attempted never leaves the machine. */
const NOWHERE = 'http://127.0.0.1:9/hooks';
const EXAMPLE_KEY = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** Examples whose values vary with each run: their bodies are checked against the schema only. */
const notReproduced: Record<string, string> = {
  endpoint: 'ids, times and a made secret vary',
  endpoints: 'ids and times vary',
  attempts: 'times and durations vary',
  stats: 'the counts vary with the deliveries made',
  recovered: 'the count varies with the events kept',
  badValue: 'the message names the field or parameter of each request (the rotation case reproduces it)',
};

let keys: AdminKeys;
let db: TestDatabase;
let service: RunningService;
let api: ApiDescription;
/** An API endpoint, an endpoint of WEBHOOK_URLS, and an event kept, made before the cases run. */
let made = 0;
let environment = 0;
let eventId = 0;

type Sender = (baseUrl: string) => Promise<ApiResponse>;

const as = (token: string | undefined, method: string, path: () => string, json?: unknown, headers: Record<string, string> = {}): Sender => (baseUrl) =>
  request(baseUrl, method, path(), { ...(json === undefined ? {} : { json }), headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers } });
const admin = (method: string, path: () => string, json?: unknown, headers?: Record<string, string>): Sender => (baseUrl) => as(keys.admin.key, method, path, json, headers)(baseUrl);
const untyped = (method: string, path: () => string): Sender => (baseUrl) =>
  request(baseUrl, method, path(), { body: '{}', headers: { authorization: `Bearer ${keys.admin.key}`, 'content-type': 'text/plain' } });

interface WebhookCase extends Case {
  challenge?: string;
}

const c = (operationId: string, rule: string, status: number, example: string | undefined, send: Sender, setup: Setup = 'normal', challenge?: string): WebhookCase => ({
  rule,
  operationId,
  status,
  ...(example ? { example } : {}),
  setup,
  send,
  ...(challenge ? { challenge } : {}),
});

const operations: Array<[operationId: string, method: string, path: (id: number) => string, body?: unknown]> = [
  ['listWebhookEndpoints', 'GET', () => BASE],
  ['createWebhookEndpoint', 'POST', () => BASE, { url: NOWHERE }],
  ['getWebhookEndpoint', 'GET', (id) => `${BASE}/${id}`],
  ['updateWebhookEndpoint', 'PATCH', (id) => `${BASE}/${id}`, { description: 'changed' }],
  ['deleteWebhookEndpoint', 'DELETE', (id) => `${BASE}/${id}`],
  ['getWebhookEndpointSecret', 'GET', (id) => `${BASE}/${id}/secret`],
  ['rotateWebhookEndpointSecret', 'POST', (id) => `${BASE}/${id}/secret/rotate`, { key: EXAMPLE_KEY, grace_seconds: 0 }],
  ['listWebhookAttempts', 'GET', (id) => `${BASE}/${id}/attempts`],
  ['getWebhookEndpointStats', 'GET', (id) => `${BASE}/${id}/stats`],
  ['recoverWebhookEndpoint', 'POST', (id) => `${BASE}/${id}/recover`, { since: new Date(Date.now() - 60_000).toISOString() }],
  ['resendWebhookEvent', 'POST', (id) => `${BASE}/${id}/events/${eventId}/resend`],
];
const byId = new Set(operations.filter(([, , path]) => path(1).includes('/1')).map(([operationId]) => operationId));
const withBody = new Set(['createWebhookEndpoint', 'updateWebhookEndpoint', 'rotateWebhookEndpointSecret', 'recoverWebhookEndpoint']);
const changes = new Set(['updateWebhookEndpoint', 'deleteWebhookEndpoint', 'getWebhookEndpointSecret', 'rotateWebhookEndpointSecret']);

/** A fresh API endpoint for a case that deletes or changes one. */
async function freshEndpoint(baseUrl: string): Promise<number> {
  const res = await as(keys.admin.key, 'POST', () => BASE, { url: NOWHERE })(baseUrl);
  assert.equal(res.status, 201, res.text);
  return (res.json as { id: number }).id;
}

const cases: WebhookCase[] = [
  ...operations.flatMap(([operationId, method, path, body]) => {
    const what = `${method} ${path(1).replace(/\/1(?=\/|$)/, '/{id}')}`;
    const target = () => path(made);
    return [
      c(operationId, `${what} without a token -> 401 authenticationRequired`, 401, 'authenticationRequired', as(undefined, method, target, body), 'normal', REALM),
      c(operationId, `${what} with a token no one issued -> 401 invalidToken`, 401, 'invalidToken', as(BAD_TOKEN, method, target, body), 'normal', `${REALM}, error="invalid_token"`),
      c(operationId, `${what} with a key without webhooks:admin -> 403 insufficientScope`, 403, 'insufficientScope', (b) => as(keys.writer.key, method, target, body)(b), 'normal',
        `${REALM}, error="insufficient_scope", scope="webhooks:admin"`),
      ...refusedRequests.slice(0, 1).map((bad) => c(operationId, `${what} ${bad.what} -> ${bad.status} ${bad.example}`, bad.status, bad.example, (b) => bad.send(method, path(1))(b))),
      c(operationId, `${what} with the table of endpoints away -> 500 databaseError`, 500, 'databaseError', (b) => admin(method, target, body)(b), 'storage-down'),
      c(operationId, `${what} before the schema is in place -> 503 starting`, 503, 'starting', (b) => admin(method, target, body)(b), 'not-ready'),
      ...(byId.has(operationId) ? [c(operationId, `${what} of an unknown endpoint -> 404 endpointNotFound`, 404, 'endpointNotFound', admin(method, () => path(ABSENT), body))] : []),
      ...(withBody.has(operationId) ? [c(operationId, `${what} with a text/plain body -> 415 unsupportedMediaType`, 415, 'unsupportedMediaType', untyped(method, target))] : []),
      ...(changes.has(operationId) ? [c(operationId, `${what} of a WEBHOOK_URLS endpoint -> 409 fromEnvironment`, 409, 'fromEnvironment', admin(method, () => path(environment), body))] : []),
    ];
  }),
  c('createWebhookEndpoint', 'POST with a URL -> 201, the endpoint and its secret', 201, undefined, admin('POST', () => BASE, { url: NOWHERE, event_types: ['user.created'] })),
  c('createWebhookEndpoint', 'POST without url -> 400 urlRequired', 400, 'urlRequired', admin('POST', () => BASE, {})),
  c('createWebhookEndpoint', 'POST with a private address -> 400 urlNotAllowed', 400, 'urlNotAllowed', admin('POST', () => BASE, { url: 'http://10.0.0.1/hooks' })),
  c('createWebhookEndpoint', 'POST with an unknown event type -> 400 eventTypesInvalid', 400, 'eventTypesInvalid', admin('POST', () => BASE, { url: NOWHERE, event_types: ['user.renamed'] })),
  c('listWebhookEndpoints', 'GET the list -> 200', 200, undefined, admin('GET', () => BASE)),
  c('getWebhookEndpoint', 'GET one -> 200 with its ETag', 200, undefined, admin('GET', () => `${BASE}/${made}`)),
  c('updateWebhookEndpoint', 'PATCH -> 200 with the new ETag', 200, undefined, admin('PATCH', () => `${BASE}/${made}`, { metadata: { team: 'conformance' } })),
  c('updateWebhookEndpoint', 'PATCH with an unknown field -> 400', 400, undefined, admin('PATCH', () => `${BASE}/${made}`, { colour: 'red' })),
  c('updateWebhookEndpoint', 'PATCH with a stale If-Match -> 412 endpointChanged', 412, 'endpointChanged', admin('PATCH', () => `${BASE}/${made}`, { description: 'x' }, { 'if-match': '"whe-0-0"' })),
  c('deleteWebhookEndpoint', 'DELETE -> 204, no body', 204, undefined, async (b) => {
    const id = await freshEndpoint(b);
    return admin('DELETE', () => `${BASE}/${id}`)(b);
  }),
  c('rotateWebhookEndpointSecret', 'rotate to the documented key -> 200 secret', 200, 'secret', admin('POST', () => `${BASE}/${made}/secret/rotate`, { key: EXAMPLE_KEY, grace_seconds: 0 })),
  c('rotateWebhookEndpointSecret', 'rotate with a grace of -1 -> 400 badValue', 400, 'badValue', admin('POST', () => `${BASE}/${made}/secret/rotate`, { grace_seconds: -1 })),
  c('getWebhookEndpointSecret', 'GET the secret after the rotation -> 200 secret', 200, 'secret', admin('GET', () => `${BASE}/${made}/secret`)),
  c('listWebhookAttempts', 'GET attempts -> 200', 200, undefined, admin('GET', () => `${BASE}/${made}/attempts?limit=10`)),
  c('listWebhookAttempts', 'GET attempts with limit=0 -> 400', 400, undefined, admin('GET', () => `${BASE}/${made}/attempts?limit=0`)),
  c('getWebhookEndpointStats', 'GET stats -> 200', 200, undefined, admin('GET', () => `${BASE}/${made}/stats`)),
  c('recoverWebhookEndpoint', 'recover the last minute -> 202', 202, undefined, admin('POST', () => `${BASE}/${made}/recover`, { since: new Date(Date.now() - 60_000).toISOString() })),
  c('recoverWebhookEndpoint', 'recover since 2000 -> 400', 400, undefined, admin('POST', () => `${BASE}/${made}/recover`, { since: '2000-01-01T00:00:00Z' })),
  c('resendWebhookEvent', 'resend a kept event -> 202 queued', 202, 'queued', admin('POST', () => `${BASE}/${made}/events/${eventId}/resend`)),
  c('resendWebhookEvent', 'resend an event not kept -> 404 eventNotFound', 404, 'eventNotFound', admin('POST', () => `${BASE}/${made}/events/${ABSENT}/resend`)),
];

before(async () => {
  keys = await adminKeys();
  db = await createTestDatabase('openapi_hooks');
  const webhooks = endpointWebhooks({ urls: ['http://127.0.0.1:9/operator'], secret: Buffer.alloc(32, 1) });
  service = await startService('openapi_hooks', { db, auth: { mode: 'all', apiKeysFile: keys.file }, events: { retentionSeconds: 86_400, webhooks } });
  api = describeApi((await request(service.baseUrl, 'GET', '/openapi.json')).json as OpenApiDocument);
  made = await freshEndpoint(service.baseUrl);
  const list = (await as(keys.admin.key, 'GET', () => BASE)(service.baseUrl)).json as Array<{ id: number; source: string }>;
  environment = list.find((one) => one.source === 'env')!.id;
  const user = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Hooked', email: 'hooked@example.com' }, headers: { authorization: `Bearer ${keys.writer.key}` } });
  assert.equal(user.status, 201);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const [row] = await db.query<Array<{ id: number }>>('SELECT MAX(last_id) AS id FROM event_batches');
  eventId = Number(row!.id);
});
after(async () => {
  await service?.close();
  await db?.drop();
  keys?.remove();
});

async function check(wc: WebhookCase, res: ApiResponse): Promise<void> {
  assertDocumented(api, wc, res);
  if (wc.challenge) assert.equal(res.headers.get('www-authenticate'), wc.challenge);
}

describe('AUTH=all and EVENTS=on: every answer of the webhook endpoint operations is documented exactly', () => {
  for (const wc of cases.filter((one) => one.setup === 'normal')) test(wc.rule, async () => check(wc, await wc.send(service.baseUrl)));

  describe('with the table of endpoints renamed away', () => {
    before(() => db.query('RENAME TABLE webhook_subscriptions TO webhook_subscriptions_away'));
    after(() => db.query('RENAME TABLE webhook_subscriptions_away TO webhook_subscriptions'));
    for (const wc of cases.filter((one) => one.setup === 'storage-down')) test(wc.rule, async () => check(wc, await wc.send(service.baseUrl)));
  });

  describe('before the schema is in place', () => {
    let starting: RunningService;
    before(async () => {
      starting = await startService('openapi_hooks_starting', { db, auth: { mode: 'all', apiKeysFile: keys.file }, events: { retentionSeconds: 86_400, webhooks: endpointWebhooks() }, prepareSchema: false });
      starting.app.schemaAt('applying');
    });
    after(() => starting?.close());
    for (const wc of cases.filter((one) => one.setup === 'not-ready')) test(wc.rule, async () => check(wc, await wc.send(starting.baseUrl)));
  });

  test('every documented status and example of every webhook endpoint operation is provoked by a case above', () => {
    const hooks = api.operations.filter((op) => op.path.startsWith('/api/webhooks/'));
    assert.equal(hooks.length, operations.length);
    const provoked = new Set(cases.map((wc) => `${wc.operationId} ${responseKey(api.operation(wc.operationId), wc.status)}`));
    const statuses = hooks.flatMap((op) => Object.keys(op.responses).map((key) => `${op.operationId} ${key}`));
    assert.deepEqual(statuses.filter((status) => !provoked.has(status)), []);
    const reproduced = new Set(cases.map((wc) => `${wc.operationId} ${wc.example}`));
    const examples = hooks.flatMap((op) =>
      Object.values(op.responses).flatMap((response) =>
        Object.values(response.content ?? {}).flatMap((media) =>
          Object.keys(media.examples ?? {})
            .filter((name) => !(name in notReproduced) && !['malformed', 'hostRequired', 'timedOut', 'expectationFailed', 'busy', 'internalError'].includes(name))
            .map((name) => `${op.operationId} ${name}`),
        ),
      ),
    );
    assert.deepEqual(examples.filter((example) => !reproduced.has(example)), []);
  });

  test('the served description requires webhooks:admin on each webhook endpoint operation', () => {
    const raw = api.document as unknown as { paths: Record<string, Record<string, { security?: unknown }>> };
    for (const op of api.operations.filter((one) => one.path.startsWith('/api/webhooks/'))) {
      assert.deepEqual(raw.paths[op.path]![op.method.toLowerCase()]!.security, [{ bearerToken: ['webhooks:admin'] }], op.operationId);
    }
  });
});
