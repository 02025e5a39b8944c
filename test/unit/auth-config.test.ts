import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { checkTokenSources } from '../../src/auth/token-sources.js';
import { ConfigError, loadConfig } from '../../src/config/environment.js';

const dir = mkdtempSync(join(tmpdir(), 'auth-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const HASH = `sha256:${'ab'.repeat(32)}`;
const OTHER_HASH = `sha256:${'cd'.repeat(32)}`;
const SECRET = 's'.repeat(32);

function keyFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const goodKeys = keyFile('good', `# keys\n\nci users:write ${HASH}\n  reader\tusers:read,users:write  ${OTHER_HASH}  \n`);

/** The ConfigError the start's checks (the configuration, then the token sources) throw for env: one line, naming `variable`. */
function configError(env: Record<string, string>, variable: string): string {
  let message = '';
  assert.throws(
    () => checkTokenSources(loadConfig(env).auth),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      message = error.message;
      return true;
    },
  );
  assert.match(message, new RegExp(`\\b${variable}\\b`));
  assert.ok(!message.includes('\n'), 'one line');
  return message;
}

describe('AUTH=off (the default) is the contract as it is', () => {
  test('unset -> mode off, no token source, nothing ignored', () => {
    assert.deepEqual(loadConfig({}).auth, { mode: 'off' });
  });

  test('AUTH=off with token settings -> they are not read (a missing file is no error) but named as ignored', () => {
    const auth = loadConfig({ API_KEYS_FILE: join(dir, 'missing'), JWT_ISSUER: 'https://issuer.example' }).auth;
    assert.deepEqual(auth, { mode: 'off', ignored: ['API_KEYS_FILE', 'JWT_ISSUER'] });
  });
});

describe('AUTH=writes and AUTH=all read their token sources', () => {
  test('API_KEYS_FILE is kept as an absolute path', () => {
    const auth = loadConfig({ AUTH: 'writes', API_KEYS_FILE: goodKeys }).auth;
    assert.deepEqual(auth, { mode: 'writes', apiKeysFile: resolve(goodKeys) });
  });

  test('the configuration names API_KEYS_FILE without reading it: the keys are checked by auth before the start', () => {
    const missing = join(dir, 'not-yet');
    assert.deepEqual(loadConfig({ AUTH: 'writes', API_KEYS_FILE: missing }).auth, { mode: 'writes', apiKeysFile: missing });
    assert.throws(() => checkTokenSources(loadConfig({ AUTH: 'writes', API_KEYS_FILE: missing }).auth), /API_KEYS_FILE \(.*not-yet\) cannot be read/);
  });

  test('every JWT_* setting is parsed into JwtSettings', () => {
    const pem = keyFile('key.pem', '-----BEGIN PUBLIC KEY-----\n');
    const auth = loadConfig({
      AUTH: 'all',
      JWT_SECRET: SECRET,
      JWT_PUBLIC_KEY_FILE: pem,
      JWT_JWKS_URL: 'https://id.example/.well-known/jwks.json',
      JWT_ISSUER: 'https://id.example/',
      JWT_AUDIENCE: 'users-api',
    }).auth;
    assert.deepEqual(auth, {
      mode: 'all',
      jwt: {
        secret: SECRET,
        publicKeyFile: pem,
        jwksUrl: 'https://id.example/.well-known/jwks.json',
        issuer: 'https://id.example/',
        audience: 'users-api',
      },
    });
  });

  test('a JWKS URL over plain http is accepted on this machine only', () => {
    assert.equal(loadConfig({ AUTH: 'writes', JWT_JWKS_URL: 'http://127.0.0.1:8080/jwks' }).auth.jwt?.jwksUrl, 'http://127.0.0.1:8080/jwks');
  });
});

describe('token settings that cannot work -> ConfigError naming the variable', () => {
  const rows: Array<[rule: string, env: Record<string, string>, variable: string, says: RegExp]> = [
    ['AUTH of another value', { AUTH: 'on' }, 'AUTH', /off, writes, all/],
    ['AUTH=writes without any source of tokens', { AUTH: 'writes' }, 'API_KEYS_FILE', /AUTH=writes needs/],
    ['AUTH=all without any source of tokens', { AUTH: 'all' }, 'API_KEYS_FILE', /AUTH=all needs/],
    ['JWT_ISSUER without a JWT key', { AUTH: 'writes', API_KEYS_FILE: goodKeys, JWT_ISSUER: 'https://id.example/' }, 'JWT_ISSUER', /no JWT key/],
    ['JWT_AUDIENCE without a JWT key', { AUTH: 'all', API_KEYS_FILE: goodKeys, JWT_AUDIENCE: 'users-api' }, 'JWT_AUDIENCE', /no JWT key/],
    ['a JWT_SECRET shorter than 32 bytes', { AUTH: 'writes', JWT_SECRET: 'short' }, 'JWT_SECRET', /at least 32 bytes/],
    ['a JWT_PUBLIC_KEY_FILE that cannot be read', { AUTH: 'writes', JWT_PUBLIC_KEY_FILE: join(dir, 'nope.pem') }, 'JWT_PUBLIC_KEY_FILE', /no such file/],
    ['a JWT_JWKS_URL that is no URL', { AUTH: 'writes', JWT_JWKS_URL: 'jwks.json' }, 'JWT_JWKS_URL', /https:/],
    ['a JWT_JWKS_URL over plain http to another machine', { AUTH: 'writes', JWT_JWKS_URL: 'http://id.example/jwks' }, 'JWT_JWKS_URL', /https:/],
    ['an API_KEYS_FILE that does not exist', { AUTH: 'writes', API_KEYS_FILE: join(dir, 'missing') }, 'API_KEYS_FILE', /cannot be read \(no such file\)/],
    ['an API_KEYS_FILE that is a directory', { AUTH: 'writes', API_KEYS_FILE: dir }, 'API_KEYS_FILE', /cannot be read \(it is a directory\)/],
  ];
  for (const [rule, env, variable, says] of rows) {
    test(`${rule} -> ConfigError naming ${variable}`, () => {
      assert.match(configError(env, variable), says);
    });
  }
});

describe('a malformed API_KEYS_FILE line -> ConfigError naming API_KEYS_FILE and the line number', () => {
  const RAW_KEY = `usk_${'A'.repeat(43)}`;
  const rows: Array<[rule: string, text: string, line: number, says: RegExp]> = [
    ['too few fields', `# ok\nci users:write\n`, 2, /found 2 fields/],
    ['too many fields', `ci users:write ${HASH} extra\n`, 1, /found 4 fields/],
    ['a name with other characters', `c/i users:write ${HASH}\n`, 1, /the name must be/],
    ['an unknown scope', `ci users:admin ${HASH}\n`, 1, /unknown scope "users:admin"/],
    ['an empty scope in the list', `ci users:read,,users:write ${HASH}\n`, 1, /unknown scope ""/],
    ['a hash without its algorithm', `ci users:write ${'ab'.repeat(32)}\n`, 1, /sha256:/],
    ['a hash of the wrong length', `ci users:write sha256:abcd\n`, 1, /64 lowercase hex/],
    ['a name used twice', `ci users:write ${HASH}\nci users:read ${OTHER_HASH}\n`, 2, /already used on line 1/],
    ['the same key twice', `ci users:write ${HASH}\n\nci2 users:read ${HASH}\n`, 3, /same key as line 1/],
    ['a key pasted instead of its hash', `ci users:write ${RAW_KEY}\n`, 1, /holds an API key itself/],
    ['a certificate line without a name after cert:', `billing users:read cert:\n`, 1, /or "cert:" and a client certificate's common name/],
    ['the same certificate name twice', `billing users:read cert:billing.internal\nbilling2 users:write cert:billing.internal\n`, 2, /same certificate name as line 1/],
    ['a certificate line reusing a key\'s name', `ci users:write ${HASH}\nci users:read cert:ci.internal\n`, 2, /already used on line 1/],
  ];
  for (const [rule, text, line, says] of rows) {
    test(`${rule} -> line ${line} named`, () => {
      const path = keyFile(`bad-${rule.replace(/\W+/g, '-')}`, text);
      const message = configError({ AUTH: 'writes', API_KEYS_FILE: path }, 'API_KEYS_FILE');
      assert.match(message, new RegExp(`line ${line}:`));
      assert.match(message, says);
      assert.ok(!message.includes(RAW_KEY), 'a key pasted by mistake is not repeated');
    });
  }
});
