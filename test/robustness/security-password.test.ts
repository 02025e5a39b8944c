import assert from 'node:assert/strict';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { after, before, describe, mock, test } from 'node:test';
import { passwordChecker } from '../../src/users/http/password.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { rawRequest } from '../helpers/raw-request.js';
import { startService, type RunningService } from '../helpers/service.js';
import { assertRevealsNothing } from './helpers/input-disclosure.js';

/** A password with characters that travel percent-encoded, so every encoding of it can be searched for. */
const PASSWORD = 'Zq9 s3cr&t=ü/7';
const encoded = encodeURIComponent(PASSWORD);
const plusEncoded = encoded.replaceAll('%20', '+');
const everyByteEncoded = [...Buffer.from(PASSWORD)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
/** Every spelling of the password a request in this file carries. */
const spellings = [PASSWORD, encoded, plusEncoded, everyByteEncoded, everyByteEncoded.toLowerCase(), JSON.stringify(PASSWORD).slice(1, -1)];

describe('the password check', () => {
  const check = passwordChecker(PASSWORD);
  const rows: ReadonlyArray<readonly [string, string | undefined, boolean]> = [
    ['the password', PASSWORD, true],
    ['no password', undefined, false],
    ['an empty string', '', false],
    ['a prefix', PASSWORD.slice(0, -1), false],
    ['the password plus one character', `${PASSWORD}x`, false],
    ['another case', PASSWORD.toUpperCase(), false],
    ['the same text with ü decomposed (u + combining diaeresis)', PASSWORD.normalize('NFD'), false],
    ['a much longer text', PASSWORD.repeat(100), false],
  ];
  for (const [what, candidate, expected] of rows) {
    test(`${what} -> ${expected ? 'accepted' : 'refused'}`, () => assert.equal(check(candidate), expected));
  }

  test('every candidate, whatever its length, is compared with timingSafeEqual on two 32-byte digests', () => {
    // password.ts imports timingSafeEqual from node:crypto; syncing the builtin's ESM exports makes it see the spy.
    const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
    const spy = mock.method(crypto, 'timingSafeEqual');
    syncBuiltinESMExports();
    try {
      const candidates = [PASSWORD, '', 'x', PASSWORD.slice(0, 3), PASSWORD.repeat(50)];
      for (const candidate of candidates) check(candidate);
      assert.equal(spy.mock.callCount(), candidates.length);
      for (const call of spy.mock.calls) {
        const [a, b] = call.arguments as unknown as [Buffer, Buffer];
        assert.deepEqual([a.length, b.length], [32, 32]);
      }
    } finally {
      spy.mock.restore();
      syncBuiltinESMExports();
    }
  });
});

describe('the password is never logged and never echoed', () => {
  let service: RunningService;
  let port: number;
  before(async () => {
    service = await startService('security_password', { password: PASSWORD });
    port = Number(new URL(service.baseUrl).port);
  });
  after(() => service.close());

  /** [method, target, expected status, extra headers, body] */
  const requests: ReadonlyArray<readonly [string, string, number, Array<[string, string]>?, string?]> = [
    ['GET', `/api/users?pwd=${encoded}`, 200],
    ['GET', `/api/users?pwd=${plusEncoded}`, 200],
    ['GET', `/api/users?pwd=${everyByteEncoded}`, 200],
    ['GET', `/api/users?pwd=${everyByteEncoded.toLowerCase()}`, 200],
    ['GET', `/api/users?p%77d=${encoded}`, 200],
    ['GET', `/api/users?x=1&pwd=${encoded}&y=2`, 200],
    ['HEAD', `/api/users?pwd=${encoded}`, 200],
    ['GET', `/api/users?PWD=${encoded}`, 401],
    ['GET', `/api/users?Pwd=${encoded}`, 401],
    ['GET', `/api/users?pwd[]=${encoded}`, 401],
    ['GET', `/api/users?pwd=${encoded}&pwd=${encoded}`, 401],
    ['GET', `/api/users?pwd=${encoded}%zz`, 401],
    ['GET', `/api/users?pwd=${encoded}#fragment`, 401],
    ['GET', `/api/users/1?pwd=${encoded}`, 200],
    ['GET', `/nothing-here?pwd=${encoded}`, 404],
    ['DELETE', `/api/users?pwd=${encoded}`, 405],
    ['OPTIONS', `/api/users?pwd=${encoded}`, 204],
    ['GET', '/api/users', 401, [['Authorization', `Bearer ${PASSWORD}`], ['X-Password', encoded]]],
    ['POST', '/api/users', 400, [['Content-Type', 'application/json']], JSON.stringify({ name: PASSWORD, email: '' })],
    ['POST', '/api/users', 400, [['Content-Type', 'application/json']], JSON.stringify({ name: PASSWORD.repeat(10), email: PASSWORD })],
    ['POST', '/api/users', 415, [['Content-Type', 'text/plain']], PASSWORD],
  ];

  test('requests carrying the password in every form are answered without echoing it', async () => {
    for (const [method, target, status, headers, body] of requests) {
      const res = await rawExchange(port, rawRequest(method, target, { headers: headers ?? [], ...(body === undefined ? {} : { body }) }));
      assert.equal(res.status, status, `${method} ${target}`);
      if (status >= 400) assertRevealsNothing(res, spellings);
    }
  });

  test('a storage failure on the list, with the right password, is logged without it', async () => {
    await service.db.query('RENAME TABLE users TO users_away');
    try {
      const res = await rawExchange(port, rawRequest('GET', `/api/users?pwd=${encoded}`));
      assert.deepEqual([res.status, res.json], [500, { error: 'Database error' }]);
      assertRevealsNothing(res, spellings);
    } finally {
      await service.db.query('RENAME TABLE users_away TO users');
    }
    assert.ok(service.logs.some((line) => line.includes('"level":"error"')), 'the failure was logged');
  });

  test('the captured log holds every request, with pwd redacted, and no spelling of the password', () => {
    const log = service.logs.join('');
    const accessLines = service.logs.filter((line) => line.includes('"msg":"request"'));
    assert.ok(accessLines.length >= requests.length + 1, `${accessLines.length} access log lines`);
    assert.ok(log.includes('"path":"/api/users?pwd=[REDACTED]"'), 'the list request is logged, redacted');
    for (const spelling of spellings) assert.ok(!log.includes(spelling), `the log contains the password as ${spelling}`);
  });
});
