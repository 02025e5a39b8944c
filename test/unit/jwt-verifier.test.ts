import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UnsecuredJWT, type JWTPayload } from 'jose';
import { jwtVerifier } from '../../src/auth/jwt-verifier.js';
import { InvalidTokenError, type Principal, type TokenVerifier } from '../../src/auth/principal.js';
import { ConfigError } from '../../src/config/environment.js';
import { hs256Token, pemFolder, pemOf, SECRET, signedToken, signingKey, type SigningAlg, type SigningKey } from '../helpers/jwt.js';

const write = pemFolder(after);
const keys = {} as Record<SigningAlg, SigningKey>;
/** A PEM file of the RS256, ES256 and EdDSA keys. */
let pemFile: string;
let rsaPem: string;

before(async () => {
  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) keys[alg] = await signingKey(alg);
  rsaPem = await pemOf(keys.RS256);
  pemFile = write('keys.pem', [rsaPem, await pemOf(keys.ES256), await pemOf(keys.EdDSA)].join(''));
});

const simple = (principal: Principal | undefined): { name: string; scopes: string[] } | undefined =>
  principal && { name: principal.name, scopes: [...principal.scopes].sort() };

async function refused(verifier: TokenVerifier, token: string, reason: RegExp): Promise<void> {
  await assert.rejects(verifier(token), (error: unknown) => {
    assert.ok(error instanceof InvalidTokenError, `an InvalidTokenError, got ${String(error)}`);
    assert.match(error.message, reason);
    return true;
  });
}

describe('jwtVerifier: valid tokens of each allowed algorithm name their subject and scopes', () => {
  const rows: { alg: SigningAlg; claims: JWTPayload; scopes: string[] }[] = [
    { alg: 'RS256', claims: { scope: 'users:read users:write' }, scopes: ['users:read', 'users:write'] },
    { alg: 'ES256', claims: { scp: ['users:read'] }, scopes: ['users:read'] },
    { alg: 'EdDSA', claims: { scp: 'users:write  users:read' }, scopes: ['users:read', 'users:write'] },
  ];
  for (const { alg, claims, scopes } of rows) {
    test(`${alg} from JWT_PUBLIC_KEY_FILE, scopes from ${Object.keys(claims)[0]} -> sub:alice with them`, async () => {
      const token = await signedToken(keys[alg], claims);
      assert.deepEqual(simple(await jwtVerifier({ publicKeyFile: pemFile })(token)), { name: 'sub:alice', scopes });
    });
  }

  test('PS256 with the RSA key of JWT_PUBLIC_KEY_FILE -> accepted', async () => {
    const token = await signedToken(keys.RS256, {}, { alg: 'PS256' });
    assert.deepEqual(simple(await jwtVerifier({ publicKeyFile: pemFile })(token)), { name: 'sub:alice', scopes: [] });
  });

  test('HS256 with JWT_SECRET -> accepted; scope and scp together give both', async () => {
    const token = await hs256Token({ sub: 'svc-42', scope: 'users:read', scp: ['users:write'] });
    assert.deepEqual(simple(await jwtVerifier({ secret: SECRET })(token)), { name: 'sub:svc-42', scopes: ['users:read', 'users:write'] });
  });
});

describe('jwtVerifier: a string that is not a JWT resolves undefined, for another verifier to claim', () => {
  const verifier = jwtVerifier({ secret: SECRET });
  for (const token of ['usk_live_0123456789abcdef', 'one.two', 'a.b.c.d', '', 'a..c', 'ab+c.def.ghi', 'abc.def.ghi=', 'abc.def.ghi ']) {
    test(`"${token}" -> undefined`, async () => assert.equal(await verifier(token), undefined));
  }

  test('three base64url parts that do not decode to a JWT header are a JWT refused, not passed on', async () => {
    await refused(verifier, 'abc.def.ghi', /JWT refused/);
  });
});

describe('jwtVerifier: only allowed algorithms, each checked against its own kind of key', () => {
  test('alg none is refused, with a secret or public keys configured', async () => {
    const token = new UnsecuredJWT({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 300 }).encode();
    await refused(jwtVerifier({ secret: SECRET }), token, /alg "none" is not allowed/);
    await refused(jwtVerifier({ publicKeyFile: pemFile }), token, /alg "none" is not allowed/);
  });

  test('HS256 signed with the RSA public key PEM as its secret is refused, with only the PEM file', async () => {
    const token = await hs256Token({}, rsaPem);
    await refused(jwtVerifier({ publicKeyFile: pemFile }), token, /alg HS256 needs JWT_SECRET, which is not set/);
  });

  test('HS256 signed with the RSA public key PEM as its secret is refused, with the PEM file and a secret', async () => {
    const token = await hs256Token({}, rsaPem);
    await refused(jwtVerifier({ secret: SECRET, publicKeyFile: pemFile }), token, /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
  });

  test('an asymmetric token is refused when only JWT_SECRET is set', async () => {
    await refused(jwtVerifier({ secret: SECRET }), await signedToken(keys.RS256), /alg RS256 needs a public key, and only JWT_SECRET \(HS256\) is set/);
  });

  test('HS512 and RS384 are not on the allow-list, even with the right key', async () => {
    await refused(jwtVerifier({ secret: SECRET }), await hs256Token({}, SECRET, { alg: 'HS512' }), /alg "HS512" is not allowed/);
    await refused(jwtVerifier({ publicKeyFile: pemFile }), await signedToken(keys.RS256, {}, { alg: 'RS384' }), /alg "RS384" is not allowed/);
  });

  test('with two keys of one alg in the file (a rotation), tokens of either are accepted', async () => {
    const next = await signingKey('ES256');
    const verify = jwtVerifier({ publicKeyFile: write('rotation.pem', (await pemOf(keys.ES256)) + (await pemOf(next))) });
    assert.equal((await verify(await signedToken(keys.ES256, { sub: 'old' })))?.name, 'sub:old');
    assert.equal((await verify(await signedToken(next, { sub: 'new' })))?.name, 'sub:new');
  });

  test('a token signed by a key not in the file is refused', async () => {
    const stranger = await signingKey('ES256');
    await refused(jwtVerifier({ publicKeyFile: pemFile }), await signedToken(stranger), /signature matches none of the 1 ES256 key/);
  });

  test('a token signed with another secret is refused', async () => {
    await refused(jwtVerifier({ secret: SECRET }), await hs256Token({}, `${SECRET}-other`), /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
  });

  test('a token whose payload was changed after signing is refused', async () => {
    const [header, , signature] = (await hs256Token({ scope: 'users:read' })).split('.');
    const payload = Buffer.from(JSON.stringify({ sub: 'alice', scope: 'users:write', exp: Math.floor(Date.now() / 1000) + 300 })).toString('base64url');
    await refused(jwtVerifier({ secret: SECRET }), `${header}.${payload}.${signature}`, /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
  });
});

describe('jwtVerifier: claims', () => {
  const now = (): number => Math.floor(Date.now() / 1000);
  const settings = { secret: SECRET, issuer: 'https://idp.example', audience: 'user-service' };
  const good = { iss: 'https://idp.example', aud: 'user-service' };
  const accepted: { rule: string; claims: JWTPayload }[] = [
    { rule: 'expired 10 s ago, within the 30 s leeway -> accepted', claims: { ...good, exp: now() - 10 } },
    { rule: 'nbf 10 s ahead, within the 30 s leeway -> accepted', claims: { ...good, nbf: now() + 10 } },
    { rule: 'aud an array holding JWT_AUDIENCE -> accepted', claims: { ...good, aud: ['other', 'user-service'] } },
  ];
  for (const { rule, claims } of accepted) {
    test(rule, async () => assert.equal((await jwtVerifier(settings)(await hs256Token(claims)))?.name, 'sub:alice'));
  }

  const refusedRows: { rule: string; claims: JWTPayload; noExp?: true; reason: RegExp }[] = [
    { rule: 'expired beyond the leeway -> refused', claims: { ...good, exp: now() - 60 }, reason: /ERR_JWT_EXPIRED/ },
    { rule: 'nbf in the future beyond the leeway -> refused', claims: { ...good, nbf: now() + 60 }, reason: /"nbf" claim timestamp check failed/ },
    { rule: 'no exp -> refused: such a token would be valid forever', claims: good, noExp: true, reason: /missing required "exp" claim/ },
    { rule: 'wrong issuer -> refused', claims: { ...good, iss: 'https://evil.example' }, reason: /unexpected "iss" claim value/ },
    { rule: 'no issuer with JWT_ISSUER set -> refused', claims: { ...good, iss: undefined }, reason: /missing required "iss" claim/ },
    { rule: 'wrong audience -> refused', claims: { ...good, aud: 'billing' }, reason: /unexpected "aud" claim value/ },
    { rule: 'no audience with JWT_AUDIENCE set -> refused', claims: { ...good, aud: undefined }, reason: /missing required "aud" claim/ },
    { rule: 'no sub -> refused: the token names no caller', claims: { ...good, sub: undefined }, reason: /missing required "sub" claim/ },
    { rule: 'an empty sub -> refused', claims: { ...good, sub: '' }, reason: /no "sub" claim naming the caller/ },
    { rule: 'scope not a string -> refused', claims: { ...good, scope: ['users:read'] }, reason: /"scope" claim is not a string/ },
    { rule: 'scp neither a string nor strings -> refused', claims: { ...good, scp: [1] }, reason: /"scp" claim is neither/ },
  ];
  for (const { rule, claims, noExp, reason } of refusedRows) {
    test(rule, async () => refused(jwtVerifier(settings), await hs256Token(claims, SECRET, { expiresIn: noExp ? null : 300 }), reason));
  }

  test('without JWT_ISSUER and JWT_AUDIENCE, iss and aud are not checked', async () => {
    const token = await hs256Token({ iss: 'https://any.example', aud: 'any' });
    assert.equal((await jwtVerifier({ secret: SECRET })(token))?.name, 'sub:alice');
  });
});

describe('jwtVerifier: settings that cannot be used stop the start', () => {
  test(`a JWT_SECRET shorter than 32 bytes -> ConfigError`, () => {
    assert.throws(() => jwtVerifier({ secret: 'short' }), (error: unknown) => error instanceof ConfigError && /JWT_SECRET must be at least 32 bytes/.test(error.message));
  });

  test('a plain-http JWT_JWKS_URL off this machine -> ConfigError; http on localhost is allowed', () => {
    assert.throws(() => jwtVerifier({ jwksUrl: 'http://idp.example/jwks' }), (error: unknown) => error instanceof ConfigError && /JWT_JWKS_URL must be an https:\/\/ URL/.test(error.message));
    assert.throws(() => jwtVerifier({ jwksUrl: 'not a url' }), ConfigError);
    assert.doesNotThrow(() => jwtVerifier({ jwksUrl: 'http://127.0.0.1:1/jwks' }));
    assert.doesNotThrow(() => jwtVerifier({ jwksUrl: 'https://idp.example/jwks' }));
  });

  test('no key source at all -> ConfigError', () => {
    assert.throws(() => jwtVerifier({ issuer: 'https://idp.example' }), ConfigError);
  });
});
