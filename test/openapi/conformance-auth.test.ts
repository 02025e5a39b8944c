import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { request, type ApiResponse } from '../helpers/http.js';
import { keyNew, type ApiKey } from '../helpers/key-new.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import type { Case } from './cases.js';
import { assertDocumented } from './conformance.js';
import { describeApi, responseKey, type ApiDescription, type OpenApiDocument } from './document.js';

/**
 * The conformance of the description a service serves with AUTH=all and RATE_LIMIT on: every
 * refusal a bearer token can get (401 without a token or with a bad one, 403 without the scope,
 * 429 past the limit) and every success is documented there exactly, challenge included, and
 * every 401 and 403 the description documents is really answered.
 */
const REALM = 'Bearer realm="users"';
const INVALID = `${REALM}, error="invalid_token"`;
const lacking = (scope: string): string => `${REALM}, error="insufficient_scope", scope="${scope}"`;
const BAD_TOKEN = 'usk_not-a-key-this-service-knows-of-at-all-000000';

interface AuthCase extends Case {
  /** The WWW-Authenticate header the answer carries exactly, when it must carry one. */
  challenge?: string;
}

const dir = mkdtempSync(join(tmpdir(), 'conformance-auth-'));
const keysFile = join(dir, 'api-keys');
let reader: ApiKey;
let writer: ApiKey;
/** users:write alone: refused where users:read is needed. */
let writeOnly: ApiKey;
let service: RunningService;
/** The same settings but 2 requests per window, to spend a client's window. */
let tight: RunningService;
let api: ApiDescription;
let tightApi: ApiDescription;

before(async () => {
  [reader, writer, writeOnly] = await Promise.all([
    keyNew('reader', 'users:read'),
    keyNew('writer', 'users:read,users:write'),
    keyNew('writeonly', 'users:write'),
  ]);
  writeFileSync(keysFile, `${[reader, writer, writeOnly].map((k) => k.line).join('\n')}\n`);
  const auth = { mode: 'all' as const, apiKeysFile: keysFile };
  service = await startService('openapi_auth', { auth, rateLimit: { requests: 1000, windowSeconds: 60 } });
  tight = await startService('openapi_auth_429', { db: service.db, auth, rateLimit: { requests: 2, windowSeconds: 600 } });
  api = describeApi((await request(service.baseUrl, 'GET', '/openapi.json')).json as OpenApiDocument);
  tightApi = describeApi((await request(tight.baseUrl, 'GET', '/openapi.json')).json as OpenApiDocument);
});
after(async () => {
  await tight?.close();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

const bearer = (token: string | undefined): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

let made = 0;
/** A user of its own for a case that changes or deletes one, made with the writer's key. */
async function freshUser(baseUrl: string): Promise<number> {
  made += 1;
  const res = await request(baseUrl, 'POST', '/api/users', { json: { name: `Auth ${made}`, email: `auth${made}@example.com` }, headers: bearer(writer.key) });
  assert.equal(res.status, 201, res.text);
  return Number(res.headers.get('location')!.split('/').pop());
}

interface Operation {
  operationId: string;
  method: string;
  /** The path, for a user made for the case when `id` is given. */
  path: (id: number) => string;
  json?: unknown;
  contentType?: string;
  scope: 'users:read' | 'users:write';
  ok: [status: number, example?: string];
  /** Changes or deletes a user: each success gets one of its own. */
  ownUser?: boolean;
}

const protectedOperations: Operation[] = [
  { operationId: 'createUser', method: 'POST', path: () => '/api/users', json: { name: 'Token Holder', email: 'holder@example.com' }, scope: 'users:write', ok: [201, 'created'] },
  { operationId: 'getUser', method: 'GET', path: () => '/api/users/1', scope: 'users:read', ok: [200] },
  { operationId: 'updateUser', method: 'PUT', path: (id) => `/api/users/${id}`, json: { name: 'Replaced', email: 'replaced@example.com' }, scope: 'users:write', ok: [200, 'updated'], ownUser: true },
  { operationId: 'patchUser', method: 'PATCH', path: (id) => `/api/users/${id}`, json: { name: 'Patched' }, contentType: 'application/merge-patch+json', scope: 'users:write', ok: [200, 'updated'], ownUser: true },
  { operationId: 'deleteUser', method: 'DELETE', path: (id) => `/api/users/${id}`, scope: 'users:write', ok: [200, 'deleted'], ownUser: true },
];

function call(op: Operation, token: string | undefined, id = 1) {
  return (baseUrl: string): Promise<ApiResponse> =>
    request(baseUrl, op.method, op.path(id), {
      headers: { ...bearer(token), ...(op.contentType ? { 'content-type': op.contentType } : {}) },
      ...(op.json === undefined ? {} : op.contentType ? { body: JSON.stringify(op.json) } : { json: op.json }),
    });
}

/** A case; `example` is left out where the body is not fixed (a user, a list of them). */
const c = (operationId: string, rule: string, status: number, example: string | undefined, send: Case['send'], challenge?: string): AuthCase => ({
  rule,
  operationId,
  status,
  ...(example ? { example } : {}),
  setup: 'normal',
  send,
  ...(challenge ? { challenge } : {}),
});

const cases: AuthCase[] = [
  ...protectedOperations.flatMap((op) => {
    const what = `${op.method} ${op.path(1).replace('/1', '/{id}')}`;
    // The keys are made before the tests run, so each case looks its key up when it is sent.
    const lackingKey = (): ApiKey => (op.scope === 'users:write' ? reader : writeOnly);
    const holdingKey = (): ApiKey => (op.scope === 'users:write' ? writer : reader);
    return [
      c(op.operationId, `${what} without a token -> 401 authenticationRequired`, 401, 'authenticationRequired', (b) => call(op, undefined)(b), REALM),
      c(op.operationId, `${what} with a token no one issued -> 401 invalidToken`, 401, 'invalidToken', (b) => call(op, BAD_TOKEN)(b), INVALID),
      c(op.operationId, `${what} with a key without ${op.scope} -> 403 insufficientScope`, 403, 'insufficientScope', (b) => call(op, lackingKey().key)(b), lacking(op.scope)),
      c(op.operationId, `${what} with a key with ${op.scope} -> ${op.ok.join(' ')}`, op.ok[0], op.ok[1], async (b) =>
        call(op, holdingKey().key, op.ownUser ? await freshUser(b) : 1)(b),
      ),
    ];
  }),
  c('listUsers', 'GET /api/users without a token or pwd -> 401 invalidPassword', 401, 'invalidPassword', (b) => request(b, 'GET', '/api/users')),
  c('listUsers', 'GET /api/users with a wrong pwd -> 401 invalidPassword', 401, 'invalidPassword', (b) => request(b, 'GET', '/api/users?pwd=wrong')),
  c('listUsers', 'GET /api/users with a token no one issued (and the right pwd) -> 401 invalidToken', 401, 'invalidToken', (b) =>
    request(b, 'GET', `/api/users?pwd=${TEST_PASSWORD}`, { headers: bearer(BAD_TOKEN) }), INVALID),
  c('listUsers', 'GET /api/users with a key without users:read -> 403 insufficientScope', 403, 'insufficientScope', (b) =>
    request(b, 'GET', '/api/users', { headers: bearer(writeOnly.key) }), lacking('users:read')),
  c('listUsers', 'GET /api/users with a key with users:read -> 200', 200, undefined, (b) => request(b, 'GET', '/api/users?limit=2', { headers: bearer(reader.key) })),
  c('listUsers', 'GET /api/users with pwd and no token -> 200', 200, undefined, (b) => request(b, 'GET', `/api/users?pwd=${TEST_PASSWORD}&limit=2`)),
];

async function check(description: ApiDescription, ac: AuthCase, res: ApiResponse): Promise<void> {
  assertDocumented(description, ac, res);
  if (ac.challenge) assert.equal(res.headers.get('www-authenticate'), ac.challenge);
  // RATE_LIMIT is on: the documented RateLimit headers are required on every answer checked above.
  const documented = description.operation(ac.operationId).responses[responseKey(description.operation(ac.operationId), res.status)!]!;
  assert.ok(documented.headers?.['RateLimit'] && documented.headers['RateLimit-Policy'], `${ac.operationId} ${res.status} documents the RateLimit headers`);
}

describe('AUTH=all with RATE_LIMIT: real answers to tokens are documented exactly in the served description', () => {
  test('the served description declares the bearer scheme and the scope of each protected operation', () => {
    const raw = api.document as unknown as { components: { securitySchemes?: Record<string, unknown> }; paths: Record<string, Record<string, { security?: unknown }>> };
    assert.deepEqual(raw.components.securitySchemes?.bearerToken && Object.keys(raw.components.securitySchemes), ['bearerToken']);
    for (const op of protectedOperations) {
      const documented = api.operation(op.operationId);
      const raw_op = raw.paths[documented.path]![documented.method.toLowerCase()]!;
      assert.deepEqual(raw_op.security, [{ bearerToken: [op.scope] }], op.operationId);
    }
    assert.deepEqual(raw.paths['/api/users']!.get!.security, [{ bearerToken: ['users:read'] }, {}]);
  });

  for (const ac of cases) test(ac.rule, async () => check(api, ac, await ac.send(service.baseUrl)));

  test('every 401 and 403 example the served description documents is provoked by a case above', () => {
    const provoked = new Set(cases.map((ac) => `${ac.operationId} ${ac.status} ${ac.example}`));
    const documented = api.operations.flatMap((op) =>
      ['401', '403'].flatMap((status) =>
        Object.keys(op.responses[status]?.content?.['application/json']?.examples ?? {}).map((name) => `${op.operationId} ${status} ${name}`),
      ),
    );
    assert.ok(documented.length > 0);
    assert.deepEqual(documented.filter((example) => !provoked.has(example)), []);
  });
});

describe('RATE_LIMIT=2 per window with AUTH=all: past the limit every operation answers the documented 429', () => {
  const listOp: Operation = { operationId: 'listUsers', method: 'GET', path: () => '/api/users', scope: 'users:read', ok: [200] };
  test('the key spends its window on two reads, each carrying the documented RateLimit headers', async () => {
    const op = protectedOperations.find((candidate) => candidate.operationId === 'getUser')!;
    for (let i = 0; i < 2; i += 1) {
      const ac = c('getUser', 'read within the limit', 200, undefined, (b) => call(op, writer.key)(b));
      await check(tightApi, ac, await ac.send(tight.baseUrl));
    }
  });
  for (const op of [...protectedOperations, listOp]) {
    test(`${op.operationId} with the key whose window is spent -> 429 tooManyRequests`, async () => {
      const ac = c(op.operationId, '429', 429, 'tooManyRequests', (b) => call(op, writer.key, 1)(b));
      const res = await ac.send(tight.baseUrl);
      await check(tightApi, ac, res);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
    });
  }
});
