import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exportJWK, SignJWT } from 'jose';
import { JWKS_COOLDOWN_MS } from '../../src/auth/jwt-jwks.js';
import { jwtVerifier } from '../../src/auth/jwt-verifier.js';
import { InvalidTokenError, type TokenVerifier } from '../../src/auth/principal.js';
import { jwkOf, pemFolder, pemOf, SECRET, signedToken, signingKey, type SigningKey } from '../helpers/jwt.js';
import { jwksServer } from '../helpers/jwks-server.js';

let published: SigningKey;
let stranger: SigningKey;

before(async () => {
  published = await signingKey('RS256', 'published');
  stranger = await signingKey('ES256', 'stranger');
});

async function refused(verifier: TokenVerifier, token: string, reason: RegExp): Promise<void> {
  await assert.rejects(verifier(token), (error: unknown) => {
    assert.ok(error instanceof InvalidTokenError, `an InvalidTokenError, got ${String(error)}`);
    assert.match(error.message, reason);
    return true;
  });
}

describe('JWT_JWKS_URL: keys fetched from the identity provider and cached', () => {
  test('a token signed by a published key is accepted; ten tokens cost one fetch', async (t) => {
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    const verify = jwtVerifier({ jwksUrl: jwks.url });
    for (let i = 0; i < 10; i++) assert.equal((await verify(await signedToken(published, { sub: `user-${i}` })))?.name, `sub:user-${i}`);
    assert.equal(jwks.fetches, 1);
  });

  test('rotation: a new key is refused during the 30 s cooldown, then accepted after one refetch', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    const verify = jwtVerifier({ jwksUrl: jwks.url });
    await verify(await signedToken(published));
    const rotated = await signingKey('ES256', 'rotated');
    jwks.serve([await jwkOf(published), await jwkOf(rotated)]);
    await refused(verify, await signedToken(rotated), /the JWKS at .* has no ES256 key with kid "rotated"/);
    assert.equal(jwks.fetches, 1, 'no refetch within the cooldown');
    t.mock.timers.tick(JWKS_COOLDOWN_MS + 1);
    assert.equal((await verify(await signedToken(rotated)))?.name, 'sub:alice');
    assert.equal(jwks.fetches, 2, 'the unknown kid caused one refetch');
  });

  test('tokens with unknown kids cause at most one refetch per 30 s, however many arrive', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    const verify = jwtVerifier({ jwksUrl: jwks.url });
    const madeUp = (i: number): Promise<string> => signedToken({ ...stranger, kid: `made-up-${i}` });
    await refused(verify, await madeUp(0), /has no ES256 key with kid "made-up-0"/);
    for (let i = 1; i <= 20; i++) await refused(verify, await madeUp(i), /has no ES256 key/);
    assert.equal(jwks.fetches, 1, 'the first fetch, and no refetch within its cooldown');
    t.mock.timers.tick(JWKS_COOLDOWN_MS + 1);
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => madeUp(100 + i)));
    const results = await Promise.allSettled(tokens.map(verify));
    assert.ok(results.every((result) => result.status === 'rejected'));
    for (let i = 200; i < 220; i++) await refused(verify, await madeUp(i), /has no ES256 key/);
    assert.equal(jwks.fetches, 2, 'forty more unknown kids after the cooldown: one refetch');
  });

  test('a made-up kid reaches the log quoted on one line and cut short', async (t) => {
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    const token = await signedToken({ ...stranger, kid: `evil\n${'x'.repeat(5000)}` });
    await assert.rejects(jwtVerifier({ jwksUrl: jwks.url })(token), (error: Error) => {
      assert.match(error.message, /kid "evil\\nxxx/);
      assert.doesNotMatch(error.message, /\n/);
      assert.ok(error.message.length < 300, `${error.message.length} characters`);
      return true;
    });
  });

  test('a token without kid is refused when several keys of the JWKS fit its alg', async (t) => {
    const second = await signingKey('RS256', 'second');
    const jwks = await jwksServer(t, [await jwkOf(published), await jwkOf(second)]);
    await refused(jwtVerifier({ jwksUrl: jwks.url }), await signedToken(published, {}, { kid: false }), /no kid, and several RS256 keys/);
  });

  test('a token without kid is accepted when one key of the JWKS fits its alg', async (t) => {
    const jwks = await jwksServer(t, [await jwkOf(published), await jwkOf(stranger)]);
    assert.equal((await jwtVerifier({ jwksUrl: jwks.url })(await signedToken(stranger, {}, { kid: false })))?.name, 'sub:alice');
  });

  test('keys already fetched keep verifying while the JWKS is down', async (t) => {
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    const verify = jwtVerifier({ jwksUrl: jwks.url });
    await verify(await signedToken(published));
    await jwks.down();
    assert.equal((await verify(await signedToken(published)))?.name, 'sub:alice');
  });

  test('a secret (oct) key published in the JWKS never verifies an HS256 token', async (t) => {
    const secret = new TextEncoder().encode(SECRET);
    const jwks = await jwksServer(t, [{ ...(await exportJWK(secret)), kid: 'shared', alg: 'HS256' }]);
    const token = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'HS256', kid: 'shared' }).setExpirationTime('5m').sign(secret);
    await refused(jwtVerifier({ jwksUrl: jwks.url }), token, /alg HS256 needs JWT_SECRET, which is not set/);
    assert.equal(jwks.fetches, 0);
  });
});

describe('JWT_JWKS_URL: a JWKS that cannot be fetched or read lets no token through, and the log says why', () => {
  const rows = [
    { rule: 'down (connection refused)', answer: 'down', reason: /the JWKS at .* is unavailable: fetch failed \(.*ECONNREFUSED/ },
    { rule: 'answering 500', answer: 'status-500', reason: /is unavailable: HTTP status 500/ },
    { rule: 'answering a body that is not JSON', answer: 'not-json', reason: /is unavailable: Failed to parse the JSON Web Key Set HTTP response as JSON/ },
    { rule: 'answering JSON that is not a key set', answer: 'not-a-jwks', reason: /is unavailable: JSON Web Key Set malformed/ },
    { rule: 'not answering within the timeout', answer: 'no-answer', reason: /is unavailable: request timed out/ },
  ] as const;
  for (const { rule, answer, reason } of rows) {
    test(`JWKS ${rule} -> refused`, async (t) => {
      const jwks = await jwksServer(t, [await jwkOf(published)]);
      if (answer === 'down') await jwks.down();
      else jwks.answer(answer);
      await refused(jwtVerifier({ jwksUrl: jwks.url }, { jwksTimeoutMs: 200 }), await signedToken(published), reason);
    });
  }
});

describe('JWT_JWKS_URL and JWT_PUBLIC_KEY_FILE together: the JWKS for the kids it holds, the PEM keys otherwise', () => {
  const write = pemFolder(after);
  let local: SigningKey;
  let pemFile: string;
  before(async () => {
    local = await signingKey('EdDSA', 'local');
    pemFile = write('local.pem', await pemOf(local));
  });

  test('a kid the JWKS holds -> its key; no kid -> the PEM keys; a kid it lacks -> the PEM keys', async (t) => {
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    const verify = jwtVerifier({ jwksUrl: jwks.url, publicKeyFile: pemFile });
    assert.equal((await verify(await signedToken(published, { sub: 'from-jwks' })))?.name, 'sub:from-jwks');
    assert.equal((await verify(await signedToken(local, { sub: 'no-kid' }, { kid: false })))?.name, 'sub:no-kid');
    assert.equal((await verify(await signedToken(local, { sub: 'unknown-kid' })))?.name, 'sub:unknown-kid');
  });

  test('a token signed by neither is refused, naming both', async (t) => {
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    const verify = jwtVerifier({ jwksUrl: jwks.url, publicKeyFile: pemFile });
    await refused(verify, await signedToken(stranger), /the JWKS at .* has no ES256 key with kid "stranger"; and no key of JWT_PUBLIC_KEY_FILE is for ES256/);
  });

  test('with the JWKS down, PEM-signed tokens still pass and JWKS-signed ones are refused', async (t) => {
    const jwks = await jwksServer(t, [await jwkOf(published)]);
    await jwks.down();
    const verify = jwtVerifier({ jwksUrl: jwks.url, publicKeyFile: pemFile });
    assert.equal((await verify(await signedToken(local)))?.name, 'sub:alice');
    await refused(verify, await signedToken(published), /is unavailable: fetch failed .*; and no key of JWT_PUBLIC_KEY_FILE is for RS256/);
  });
});
