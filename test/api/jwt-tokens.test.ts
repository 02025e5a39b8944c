import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { JWTPayload } from 'jose';
import { JWKS_COOLDOWN_MS } from '../../src/auth/jwt-jwks.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { request, type ApiResponse } from '../helpers/http.js';
import { jwksServer, type JwksAnswer, type JwksServer } from '../helpers/jwks-server.js';
import { hs256Token, jwkOf, pemOf, SECRET, signedToken, signingKey, type SigningKey } from '../helpers/jwt.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'users-api';
const INVALID = 'Bearer realm="users", error="invalid_token"';
const lacking = (scope: string): string => `Bearer realm="users", error="insufficient_scope", scope="${scope}"`;

/** Keys the identity provider publishes in its JWKS, and one it never publishes. */
let rsKey: SigningKey;
let esKey: SigningKey;
let stranger: SigningKey;

let db: TestDatabase;
/** AUTH=all with JWT_JWKS_URL, JWT_SECRET, JWT_ISSUER and JWT_AUDIENCE. */
let all: RunningService;
let idp: JwksServer;

/**
 * jwksServer stops its server when the context it is given ends; the file's servers are stopped in
 * its `after` (an `after` registered inside `before` would run as soon as `before` ends).
 */
const stops: Array<() => Promise<void>> = [];
const fileScope = { after: (stop: () => Promise<void>) => void stops.push(stop) } as unknown as TestContext;

before(async () => {
  [rsKey, esKey, stranger] = await Promise.all([signingKey('RS256', 'idp-rs'), signingKey('ES256', 'idp-es'), signingKey('RS256', 'stranger')]);
  idp = await jwksServer(fileScope, [await jwkOf(rsKey), await jwkOf(esKey)]);
  db = await createTestDatabase('jwt_http');
  all = await startService('jwt_http', {
    db,
    auth: { mode: 'all', jwt: { jwksUrl: idp.url, secret: SECRET, issuer: ISSUER, audience: AUDIENCE } },
  });
});
after(async () => {
  await all?.close();
  await Promise.all(stops.map((stop) => stop()));
  await db?.drop();
});

/** The claims a token of this identity provider for this API carries, with `extra` over them. */
const claims = (extra: JWTPayload = {}): JWTPayload => ({ iss: ISSUER, aud: AUDIENCE, scope: 'users:write users:read', ...extra });
const now = (): number => Math.floor(Date.now() / 1000);

interface Call {
  token?: string;
  json?: unknown;
  forwardedFor?: string;
}

function call(service: RunningService, method: string, path: string, options: Call = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.forwardedFor !== undefined) headers['x-forwarded-for'] = options.forwardedFor;
  return request(service.baseUrl, method, path, { headers, ...(options.json === undefined ? {} : { json: options.json }) });
}

function assertRefused(res: ApiResponse, status: number, error: string, challenge: string): void {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(res.json, { error });
  assert.equal(res.headers.get('www-authenticate'), challenge);
}

let made = 0;
const person = (): { name: string; email: string } => ({ name: `Jwt Holder ${++made}`, email: `jwt${made}@example.com` });
const rowCount = async (): Promise<number> => (await db.users()).length;

/** A token with `alg: none` and no signature, which must never be taken as signed. */
function unsignedToken(payload: JWTPayload): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'alice', exp: now() + 300, ...payload })}.`;
}

/** The token with one character of its signature changed. */
function tampered(token: string): string {
  const at = token.lastIndexOf('.') + 10;
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
}

describe('AUTH=all with JWT_JWKS_URL and JWT_SECRET: a valid token gets in by its scopes', () => {
  const accepted: Array<[rule: string, token: () => Promise<string>]> = [
    ['an RS256 token of the JWKS with scope "users:write users:read"', () => signedToken(rsKey, claims({ sub: 'rs-user' }))],
    ['an ES256 token of the JWKS with the scopes as an "scp" array', () => signedToken(esKey, claims({ sub: 'es-user', scope: undefined, scp: ['users:write', 'users:read'] }))],
    ['an HS256 token signed with JWT_SECRET', () => hs256Token(claims({ sub: 'hs-user' }))],
    ['a token that expired 10 s ago, within the 30 s leeway', () => signedToken(rsKey, claims({ sub: 'late-user', exp: now() - 10 }))],
  ];
  for (const [rule, token] of accepted) {
    test(`${rule} creates (201), reads one (200), lists without pwd (200) and deletes (200)`, async () => {
      const bearer = await token();
      const sent = person();
      const created = await call(all, 'POST', '/api/users', { token: bearer, json: sent });
      assert.equal(created.status, 201, created.text);
      const path = new URL(created.headers.get('location')!, all.baseUrl).pathname;
      const id = Number(path.split('/').pop());
      const one = await call(all, 'GET', path, { token: bearer });
      assert.equal(one.status, 200, one.text);
      assert.deepEqual({ ...(one.json as object), created_at: undefined }, { id, ...sent, created_at: undefined });
      const list = await call(all, 'GET', '/api/users', { token: bearer });
      assert.equal(list.status, 200, list.text);
      assert.ok((list.json as Array<{ id: number }>).some((user) => user.id === id), 'the list holds the new user');
      assert.equal((await call(all, 'DELETE', path, { token: bearer })).status, 200);
      assert.ok(!(await db.users()).some((user) => user.id === id), 'the user is gone');
    });
  }

  test('a token with only users:read -> POST 403 Insufficient scope naming users:write, nothing stored; it still reads (200)', async () => {
    const reader = await signedToken(rsKey, claims({ sub: 'reader', scope: 'users:read' }));
    const before = await rowCount();
    assertRefused(await call(all, 'POST', '/api/users', { token: reader, json: person() }), 403, 'Insufficient scope', lacking('users:write'));
    assert.equal(await rowCount(), before);
    assert.equal((await call(all, 'GET', '/api/users/1', { token: reader })).status, 200);
  });

  test('a token with only users:write -> GET one 403 Insufficient scope naming users:read', async () => {
    const writer = await signedToken(rsKey, claims({ sub: 'writer', scope: 'users:write' }));
    assertRefused(await call(all, 'GET', '/api/users/1', { token: writer }), 403, 'Insufficient scope', lacking('users:read'));
  });
});

describe('a JWT that is not valid -> 401 Invalid token with error="invalid_token", and nothing stored', () => {
  const refused: Array<[rule: string, token: () => Promise<string>]> = [
    ['alg none, unsigned', async () => unsignedToken(claims())],
    ['HS256 signed with the RSA public key\'s PEM as the HMAC secret', async () => hs256Token(claims(), await pemOf(rsKey))],
    ['expired 60 s ago, beyond the 30 s leeway', () => signedToken(rsKey, claims({ exp: now() - 60 }))],
    ['nbf 60 s ahead, beyond the 30 s leeway', () => signedToken(rsKey, claims({ nbf: now() + 60 }))],
    ['of another issuer', () => signedToken(rsKey, claims({ iss: 'https://other-idp.example.test/' }))],
    ['without an audience', () => signedToken(rsKey, claims({ aud: undefined }))],
    ['for another audience', () => signedToken(rsKey, claims({ aud: 'another-api' }))],
    ['with a signature altered', async () => tampered(await signedToken(rsKey, claims()))],
    ['signed by a key the JWKS does not hold', () => signedToken(stranger, claims())],
    ['signed by another key under the kid of a published one', () => signedToken({ ...stranger, kid: rsKey.kid }, claims())],
    ['HS256 signed with another secret', () => hs256Token(claims(), 'another-secret-of-at-least-32-bytes!')],
  ];
  for (const [rule, token] of refused) {
    test(`POST with a token ${rule} -> 401, no row added; GET one -> 401 too`, async () => {
      const bearer = await token();
      const before = await rowCount();
      assertRefused(await call(all, 'POST', '/api/users', { token: bearer, json: person() }), 401, 'Invalid token', INVALID);
      assert.equal(await rowCount(), before);
      assertRefused(await call(all, 'GET', '/api/users/1', { token: bearer }), 401, 'Invalid token', INVALID);
    });
  }
});

describe('the JWKS rotates its keys: the service follows without a restart', () => {
  test('a new kid is refused during the 30 s cooldown, then accepted (201) after one refetch; the withdrawn key is then refused', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const retired = await signingKey('RS256', 'before-rotation');
    const rotatedIn = await signingKey('ES256', 'after-rotation');
    const jwks = await jwksServer(t, [await jwkOf(retired)]);
    const service = await startService('jwt_rotation', { db, auth: { mode: 'all', jwt: { jwksUrl: jwks.url } } });
    t.after(() => service.close());

    const old = await signedToken(retired, { sub: 'rotating', scope: 'users:write' });
    assert.equal((await call(service, 'POST', '/api/users', { token: old, json: person() })).status, 201);
    assert.equal(jwks.fetches, 1);

    jwks.serve([await jwkOf(rotatedIn)]);
    const fresh = await signedToken(rotatedIn, { sub: 'rotating', scope: 'users:write' });
    const rows = await rowCount();
    assertRefused(await call(service, 'POST', '/api/users', { token: fresh, json: person() }), 401, 'Invalid token', INVALID);
    assert.equal(await rowCount(), rows);
    assert.equal(jwks.fetches, 1, 'no refetch within the cooldown');

    t.mock.timers.tick(JWKS_COOLDOWN_MS + 1000);
    const res = await call(service, 'POST', '/api/users', { token: fresh, json: person() });
    assert.equal(res.status, 201, res.text);
    assert.equal(jwks.fetches, 2, 'the unknown kid caused one refetch');
    assertRefused(await call(service, 'POST', '/api/users', { token: old, json: person() }), 401, 'Invalid token', INVALID);
  });
});

describe('the JWKS is unavailable: tokens it would vouch for are refused, and the service keeps serving', () => {
  test('a JWKS answering 500, not JSON, no key set, then not at all -> 401 for a kid never fetched; /healthz 200 and HS256 201 throughout', async (t) => {
    const published = await signingKey('RS256', 'unreachable');
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    const service = await startService('jwt_jwks_down', { db, auth: { mode: 'all', jwt: { jwksUrl: jwks.url, secret: SECRET } } });
    t.after(() => service.close());
    const token = await signedToken(published, { scope: 'users:write users:read' });

    const outages: Array<JwksAnswer | 'down'> = ['status-500', 'not-json', 'not-a-jwks', 'down'];
    for (const outage of outages) {
      if (outage === 'down') await jwks.down();
      else jwks.answer(outage);
      const rows = await rowCount();
      const res = await call(service, 'POST', '/api/users', { token, json: person() });
      assertRefused(res, 401, 'Invalid token', INVALID);
      assert.equal(await rowCount(), rows, `nothing stored (${outage})`);
      assertRefused(await call(service, 'GET', '/api/users/1', { token }), 401, 'Invalid token', INVALID);
      assert.equal((await call(service, 'GET', '/healthz')).status, 200, `/healthz (${outage})`);
      const hs = await call(service, 'POST', '/api/users', { token: await hs256Token({ scope: 'users:write' }), json: person() });
      assert.equal(hs.status, 201, `HS256 (${outage}): ${hs.text}`);
    }
    assert.equal(jwks.fetches, 6, 'each outage answered was asked, twice (POST and GET), for want of a key');
  });
});

describe('the access log names the JWT\'s subject and never holds the token', () => {
  interface AccessLine {
    msg: string;
    path: string;
    status: number;
    principal?: string;
  }
  const accessLine = (marker: string): Promise<AccessLine> =>
    pollUntil(`the access line of ${marker}`, () =>
      all.logs.map((line) => JSON.parse(line) as AccessLine).find((entry) => entry.msg === 'request' && entry.path.includes(marker)),
    );

  const rows: Array<[rule: string, token: () => Promise<string>, status: number, principal: string | undefined]> = [
    ['a write with a users:write JWT', () => signedToken(rsKey, claims({ sub: 'logged-writer' })), 201, 'sub:logged-writer'],
    ['a write refused for its scope', () => signedToken(rsKey, claims({ sub: 'logged-reader', scope: 'users:read' })), 403, 'sub:logged-reader'],
    ['a write with an expired JWT', () => signedToken(rsKey, claims({ sub: 'logged-late', exp: now() - 120 })), 401, undefined],
  ];
  for (const [index, [rule, token, status, principal]] of rows.entries()) {
    test(`${rule} -> ${status}, the access line ${principal === undefined ? 'names no principal' : `names ${principal}`}, no line holds the token`, async () => {
      const marker = `jwtlog${index}x${Date.now()}`;
      const bearer = await token();
      assert.equal((await call(all, 'POST', `/api/users?${marker}`, { token: bearer, json: person() })).status, status);
      const line = await accessLine(marker);
      assert.equal(line.status, status);
      assert.equal(line.principal, principal);
      const signature = bearer.slice(bearer.lastIndexOf('.') + 1);
      for (const logged of all.logs) {
        assert.ok(!logged.includes(signature), `no token: ${logged}`);
        // Every JWT begins with the base64url of `{"`: eyJ.
        assert.ok(!logged.includes('eyJ'), `no token part: ${logged}`);
      }
    });
  }
});

describe('RATE_LIMIT=3/60s with AUTH=all: a JWT caller is counted by its subject, others by address', () => {
  let limited: RunningService;
  before(async () => {
    limited = await startService('jwt_rate_limit', {
      db,
      trustProxy: true,
      rateLimit: { requests: 3, windowSeconds: 60 },
      auth: { mode: 'all', jwt: { secret: SECRET } },
    });
  });
  after(() => limited?.close());

  const read = async (sub: string | undefined, forwardedFor: string): Promise<ApiResponse> =>
    call(limited, 'GET', '/api/users/1', { forwardedFor, ...(sub === undefined ? {} : { token: await hs256Token({ sub, scope: 'users:read' }) }) });

  function assertLimited(res: ApiResponse): void {
    assert.equal(res.status, 429, res.text);
    assert.deepEqual(res.json, { error: 'Too many requests' });
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    assert.equal(res.headers.get('ratelimit-policy'), '"default";q=3;w=60');
    assert.equal(res.headers.get('ratelimit'), `"default";r=0;t=${retryAfter}`);
  }

  test('one subject from two addresses shares one allowance: its 4th request in all -> 429 with Retry-After and RateLimit headers', async () => {
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.1']) assert.equal((await read('shared', address)).status, 200, address);
    assertLimited(await read('shared', '203.0.113.2'));
  });

  test('a second subject at the same addresses still has its own allowance', async () => {
    for (const address of ['203.0.113.11', '203.0.113.12', '203.0.113.11']) assert.equal((await read('spent', address)).status, 200);
    assertLimited(await read('spent', '203.0.113.12'));
    const other = await read('untouched', '203.0.113.11');
    assert.equal(other.status, 200, other.text);
    assert.equal(other.headers.get('ratelimit')?.split(';')[1], 'r=2');
  });

  test('a client without a token is counted by its address, apart from the subjects that used it: its 4th request -> 429', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await read('busy', '203.0.113.21')).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await read(undefined, '203.0.113.21')).status, 401, `anonymous request ${i + 1}`);
    assertLimited(await read(undefined, '203.0.113.21'));
    assert.equal((await read(undefined, '203.0.113.22')).status, 401, 'another address has its own allowance');
  });
});
