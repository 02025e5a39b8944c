import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { apiKeyLine } from '../../src/auth/api-key-file.js';
import { apiKeyDigest, newApiKey } from '../../src/auth/api-key.js';
import { apiKeyVerifier } from '../../src/auth/api-key-verifier.js';
import { ReloadingApiKeys } from '../../src/auth/api-keys-reload.js';
import { BearerAuth, requireScope } from '../../src/auth/bearer-auth.js';
import { bearerToken } from '../../src/auth/bearer-token.js';
import { InvalidTokenError, type Principal, type TokenVerifier } from '../../src/auth/principal.js';
import { anyVerifier } from '../../src/auth/verifiers.js';
import { HttpError } from '../../src/errors/http-error.js';
import { createLogger, type Logger, type LogFields } from '../../src/log/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'bearer-auth-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Logged {
  level: string;
  msg: string;
  fields?: LogFields;
}

function recordingLogger(): Logger & { lines: Logged[] } {
  const lines: Logged[] = [];
  return {
    lines,
    request: () => {},
    info: (msg, fields) => lines.push({ level: 'info', msg, ...(fields ? { fields } : {}) }),
    warn: (msg, fields) => lines.push({ level: 'warn', msg, ...(fields ? { fields } : {}) }),
    error: (msg, _error, fields) => lines.push({ level: 'error', msg, ...(fields ? { fields } : {}) }),
  };
}

describe('bearerToken: the token of an Authorization header', () => {
  const rows: Array<[header: string | undefined, token: string | undefined]> = [
    [undefined, undefined],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER   abc  ', 'abc'],
    ['Bearer a b', 'a b'],
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['Bearerabc', undefined],
    ['Basic dXNlcjpwYXNz', undefined],
    ['Token abc', undefined],
    ['', undefined],
  ];
  for (const [header, token] of rows) {
    test(`${JSON.stringify(header)} -> ${JSON.stringify(token)}`, () => {
      assert.equal(bearerToken(header), token);
    });
  }
});

describe('apiKeyVerifier', () => {
  const key = newApiKey();
  const principal: Principal = { name: 'key:ci', scopes: new Set(['users:write']) };
  const verify = apiKeyVerifier({ current: () => new Map([[apiKeyDigest(key).toString('hex'), { principal, digest: apiKeyDigest(key) }]]) });

  test('a token without the key prefix is not its kind -> undefined', async () => {
    assert.equal(await verify('eyJhbGciOiJIUzI1NiJ9.e30.sig'), undefined);
  });

  test('a key of the file -> its principal', async () => {
    assert.equal(await verify(key), principal);
  });

  test('a well-formed key the file does not hold -> InvalidTokenError', async () => {
    await assert.rejects(verify(newApiKey()), InvalidTokenError);
  });

  test('a key with a character changed -> InvalidTokenError', async () => {
    const changed = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    await assert.rejects(verify(changed), InvalidTokenError);
  });

  test('a token with the prefix but not the shape of a key -> InvalidTokenError', async () => {
    await assert.rejects(verify(`${key}x`), InvalidTokenError);
  });
});

describe('anyVerifier: the first verifier that knows the token decides', () => {
  const principal: Principal = { name: 'sub:alice', scopes: new Set(['users:read']) };
  const notMine: TokenVerifier = async () => undefined;
  const mine: TokenVerifier = async (token) => (token === 'good' ? principal : undefined);

  test('a token one verifier claims -> its principal, past the verifiers that do not', async () => {
    assert.equal(await anyVerifier([notMine, mine])('good'), principal);
  });

  test('a token no verifier claims -> InvalidTokenError', async () => {
    await assert.rejects(anyVerifier([notMine, mine])('other'), InvalidTokenError);
  });

  test('no verifiers at all -> every token is invalid', async () => {
    await assert.rejects(anyVerifier([])('good'), InvalidTokenError);
  });

  for (const [rule, token] of [['a space', 'a b'], ['a comma', 'a,b'], ['over 8 KiB', 'a'.repeat(8193)]] as const) {
    test(`a token with ${rule} is refused before any verifier sees it`, async () => {
      let seen = false;
      const watching: TokenVerifier = async () => {
        seen = true;
        return principal;
      };
      await assert.rejects(anyVerifier([watching])(token), InvalidTokenError);
      assert.equal(seen, false);
    });
  }
});

describe('BearerAuth', () => {
  const principal: Principal = { name: 'key:ci', scopes: new Set(['users:read']) };
  const status = (error: unknown): string => {
    assert.ok(error instanceof HttpError, String(error));
    return `${error.status} ${error.headers['WWW-Authenticate']}`;
  };

  test('no bearer token -> 401 with the bare challenge, nothing logged', async () => {
    const logger = recordingLogger();
    const auth = new BearerAuth(async () => principal, logger);
    await assert.rejects(auth.authenticate('Basic x', 'r1'), (error) => status(error) === '401 Bearer realm="users"');
    assert.deepEqual(logger.lines, []);
  });

  test('a refused token -> 401 invalid_token, its reason logged with the request id', async () => {
    const logger = recordingLogger();
    const auth = new BearerAuth(async () => {
      throw new InvalidTokenError('expired');
    }, logger);
    await assert.rejects(auth.authenticate('Bearer secret-token', 'r2'), (error) => status(error) === '401 Bearer realm="users", error="invalid_token"');
    assert.deepEqual(logger.lines, [{ level: 'info', msg: 'bearer token refused', fields: { reason: 'expired', requestId: 'r2' } }]);
  });

  test('a reason quoting the token is not logged as it is', async () => {
    const logger = recordingLogger();
    const auth = new BearerAuth(async (token) => {
      throw new InvalidTokenError(`bad token ${token}`);
    }, logger);
    await assert.rejects(auth.authenticate('Bearer secret-token-123', 'r3'), HttpError);
    assert.ok(!JSON.stringify(logger.lines).includes('secret-token-123'));
  });

  test('a verifier failing otherwise (its key server down) propagates as it is, not as a 401', async () => {
    const down = new Error('JWKS unreachable');
    const auth = new BearerAuth(async () => {
      throw down;
    }, recordingLogger());
    await assert.rejects(auth.authenticate('Bearer abc', 'r4'), (error) => error === down);
  });

  test('requireScope: a missing scope -> 403 naming it; a present one passes', () => {
    assert.throws(() => requireScope(principal, 'users:write'), (error) => status(error) === '403 Bearer realm="users", error="insufficient_scope", scope="users:write"');
    requireScope(principal, 'users:read');
  });
});

describe('ReloadingApiKeys: API_KEYS_FILE as it changes', () => {
  const first = newApiKey();
  const second = newApiKey();
  const line = (name: string, key: string): string => apiKeyLine(name, ['users:write'], apiKeyDigest(key));
  const has = async (keys: ReloadingApiKeys, key: string): Promise<boolean> => (await keys.current()).has(apiKeyDigest(key).toString('hex'));

  test('a missing file at start -> ApiKeyFileError naming why', () => {
    assert.throws(() => new ReloadingApiKeys(join(dir, 'none'), recordingLogger(), 0), /cannot be read \(no such file\)/);
  });

  test('a line added is accepted and a line deleted refused, each at the next check, with an info line', async () => {
    const path = join(dir, 'changing');
    writeFileSync(path, `${line('one', first)}\n`);
    const logger = recordingLogger();
    const keys = new ReloadingApiKeys(path, logger, 0);
    assert.equal(await has(keys, first), true);
    assert.equal(await has(keys, second), false);
    writeFileSync(path, `${line('one', first)}\n${line('two', second)}\n`);
    assert.equal(await has(keys, second), true);
    writeFileSync(path, `${line('two', second)}\n`);
    assert.equal(await has(keys, first), false);
    assert.deepEqual(logger.lines.map((entry) => `${entry.msg} ${String(entry.fields?.keys)}`), ['API_KEYS_FILE read again 2', 'API_KEYS_FILE read again 1']);
  });

  test('an unchanged file is not read again', async () => {
    const path = join(dir, 'steady');
    writeFileSync(path, `${line('one', first)}\n`);
    const logger = recordingLogger();
    const keys = new ReloadingApiKeys(path, logger, 0);
    for (let i = 0; i < 3; i++) assert.equal(await has(keys, first), true);
    assert.deepEqual(logger.lines, []);
  });

  test('within the recheck interval the file is not looked at: a deleted line still counts', async () => {
    const path = join(dir, 'interval');
    writeFileSync(path, `${line('one', first)}\n`);
    const keys = new ReloadingApiKeys(path, recordingLogger(), 60_000);
    writeFileSync(path, '');
    assert.equal(await has(keys, first), true);
  });

  test('a file made malformed keeps the last keys, warning once until it changes again', async () => {
    const path = join(dir, 'malformed');
    writeFileSync(path, `${line('one', first)}\n`);
    const logger = recordingLogger();
    const keys = new ReloadingApiKeys(path, logger, 0);
    writeFileSync(path, `${line('one', first)}\n${first}\n`);
    assert.equal(await has(keys, first), true);
    assert.equal(await has(keys, first), true);
    assert.equal(logger.lines.length, 1);
    assert.equal(logger.lines[0]!.level, 'warn');
    assert.match(String(logger.lines[0]!.fields?.reason), /^line 2: holds an API key itself/);
    assert.ok(!JSON.stringify(logger.lines).includes(first), 'the pasted key is not logged');
    writeFileSync(path, `${line('two', second)}\n`);
    assert.equal(await has(keys, first), false);
    assert.equal(await has(keys, second), true);
  });

  test('a file deleted or unreadable keeps the last keys with one warning; back again, it is read', async () => {
    const path = join(dir, 'vanishing');
    writeFileSync(path, `${line('one', first)}\n`);
    const logger = recordingLogger();
    const keys = new ReloadingApiKeys(path, logger, 0);
    unlinkSync(path);
    assert.equal(await has(keys, first), true);
    assert.equal(await has(keys, first), true);
    assert.deepEqual(logger.lines.map((entry) => entry.fields?.reason), ['cannot be read (no such file)']);
    writeFileSync(path, `${line('two', second)}\n`);
    assert.equal(await has(keys, second), true);
    assert.equal(await has(keys, first), false);
    if (process.getuid?.() !== 0) {
      chmodSync(path, 0o000);
      assert.equal(await has(keys, second), true);
      assert.match(String(logger.lines.at(-1)?.fields?.reason), /permission denied/);
      chmodSync(path, 0o600);
    }
  });

  test('concurrent callers share one check', async () => {
    const path = join(dir, 'shared');
    writeFileSync(path, `${line('one', first)}\n`);
    const logger = recordingLogger();
    const keys = new ReloadingApiKeys(path, logger, 0);
    writeFileSync(path, `${line('two', second)}\n`);
    const answers = await Promise.all([keys.current(), keys.current(), keys.current()]);
    assert.equal(new Set(answers).size, 1);
    assert.equal(logger.lines.length, 1);
  });
});

describe('the access line names the principal', () => {
  test('JSON: a principal field when given, none otherwise', () => {
    const lines: string[] = [];
    const logger = createLogger((line) => lines.push(line));
    logger.request('POST', '/api/users', 201, 1.5, 'r1', '127.0.0.1', 'curl/8.5.0', 'key:ci');
    logger.request('POST', '/api/users', 401, 0.5, 'r2', '127.0.0.1', undefined);
    const [withPrincipal, without] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(withPrincipal!.principal, 'key:ci');
    assert.equal('principal' in without!, false);
  });

  test('pretty: principal=key:ci', () => {
    const lines: string[] = [];
    createLogger((line) => lines.push(line), 'pretty').request('DELETE', '/api/users/2', 200, 1, 'r1', '127.0.0.1', undefined, 'key:ci');
    assert.match(lines[0]!, / principal=key:ci\n$/);
  });
});
