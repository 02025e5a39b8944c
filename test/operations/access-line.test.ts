import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';

const SECRET = 'Access-line-secret-91';
const FORWARDED_WARNING = /^X-Forwarded-For is ignored: with TRUST_PROXY=0 .* set TRUST_PROXY=1$/;

let direct: RunningService;
let proxied: RunningService;
before(async () => {
  direct = await startService('access_direct', { password: SECRET });
  proxied = await startService('access_proxied', { password: SECRET, trustProxy: true });
});
after(async () => {
  await direct.close();
  await proxied.close();
});

type Entry = Record<string, unknown>;
const entries = (service: RunningService): Entry[] => service.logs.map((line) => JSON.parse(line) as Entry);

/** The access line of the request whose target holds `marker` (written when the response closes). */
function accessLine(service: RunningService, marker: string): Promise<Entry> {
  return pollUntil(`the access line of ${marker}`, () => entries(service).find((entry) => entry.msg === 'request' && String(entry.path).includes(marker)), {
    timeoutMs: 5000,
    intervalMs: 20,
  });
}

describe('the access line: who asked, and only the password hidden', () => {
  test('it names the client address and the user agent', async () => {
    await request(direct.baseUrl, 'GET', '/api/users/1?who1', { headers: { 'User-Agent': 'access-test/1.0 (linux)' } });
    const line = await accessLine(direct, 'who1');
    assert.equal(line.client, '127.0.0.1');
    assert.equal(line.userAgent, 'access-test/1.0 (linux)');
  });

  test('a long user agent is cut to 200 characters and marked', async () => {
    await request(direct.baseUrl, 'GET', '/healthz?who2', { headers: { 'User-Agent': 'u'.repeat(5000) } });
    assert.equal((await accessLine(direct, 'who2')).userAgent, `${'u'.repeat(200)}…`);
  });

  test('only pwd is redacted: limit, sort, cursor and email stay readable', async () => {
    const query = `limit=2&sort=name&cursor=abc.def&email=ada%40example.com&pwd=${SECRET}&who3`;
    await request(direct.baseUrl, 'GET', `/api/users?${query}`);
    const line = await accessLine(direct, 'who3');
    assert.equal(line.path, '/api/users?limit=2&sort=name&cursor=abc.def&email=ada%40example.com&pwd=[REDACTED]&who3');
    for (const logged of direct.logs) assert.ok(!logged.includes(SECRET), logged);
  });
});

describe('X-Forwarded-For with TRUST_PROXY=0', () => {
  test('ignored for the address, and said once per process, not per request', async () => {
    for (let i = 0; i < 3; i++) {
      await request(direct.baseUrl, 'GET', `/api/users/1?fwd${i}`, { headers: { 'X-Forwarded-For': `203.0.113.${i}` } });
    }
    for (let i = 0; i < 3; i++) assert.equal((await accessLine(direct, `fwd${i}`)).client, '127.0.0.1', 'the header is ignored');
    const warnings = entries(direct).filter((entry) => FORWARDED_WARNING.test(String(entry.msg)));
    assert.equal(warnings.length, 1, 'one warning');
    assert.equal(warnings[0]!.level, 'warn');
    assert.equal(warnings[0]!.from, '127.0.0.1', 'it names where the header came from');
  });

  test('with TRUST_PROXY=1 the last hop is the client, and nothing is warned', async () => {
    await request(proxied.baseUrl, 'GET', '/api/users/1?fwd-proxied', { headers: { 'X-Forwarded-For': '198.51.100.1, 203.0.113.77' } });
    assert.equal((await accessLine(proxied, 'fwd-proxied')).client, '203.0.113.77');
    assert.deepEqual(entries(proxied).filter((entry) => FORWARDED_WARNING.test(String(entry.msg))), []);
  });
});
