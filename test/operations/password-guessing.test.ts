import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ApiResponse, request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

/** Behind a proxy: every test is its own client address, so none depends on another's failures. */
let proxied: RunningService;
/** Not behind a proxy: X-Forwarded-For must be ignored. */
let direct: RunningService;
/** A one-second window, to see a block end. */
let brief: RunningService;
/** Remembers only 50 addresses, to show the bound on memory over HTTP. */
let small: RunningService;

/** The production limits (the test harness lifts them for every other suite). */
const limits = { maxFailures: 10, windowSeconds: 60 };

before(async () => {
  proxied = await startService('guessing', { trustProxy: true, guessing: limits });
  direct = await startService('guessing_direct', { db: proxied.db, guessing: limits });
  brief = await startService('guessing_brief', { db: proxied.db, trustProxy: true, guessing: { maxFailures: 10, windowSeconds: 1 } });
  small = await startService('guessing_small', { db: proxied.db, trustProxy: true, guessing: { ...limits, testing: { maxTracked: 50 } } });
});
after(async () => {
  await Promise.all([direct?.close(), brief?.close(), small?.close()]);
  await proxied?.close();
});

const list = (service: RunningService, password: string, forwardedFor?: string): Promise<ApiResponse> =>
  request(service.baseUrl, 'GET', `/api/users?pwd=${encodeURIComponent(password)}`, {
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  });

async function failTimes(service: RunningService, times: number, forwardedFor?: string): Promise<void> {
  for (let i = 0; i < times; i++) {
    const res = await list(service, `wrong-${i}`, forwardedFor);
    assert.equal(res.status, 401, `failure ${i + 1} is an ordinary 401`);
  }
}

function assertBlocked(res: ApiResponse, windowSeconds = 60): void {
  assert.equal(res.status, 429, res.text);
  assert.deepEqual(res.json, { error: 'Too many failed attempts' });
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After: ${retryAfter}`);
}

describe('10 wrong passwords within 60 s from one address -> 429 until the window passes', () => {
  test('the 11th list request, even with the right password, -> 429 with Retry-After', async () => {
    await failTimes(proxied, 10, '198.51.100.1');
    assertBlocked(await list(proxied, TEST_PASSWORD, '198.51.100.1'));
  });

  test('the block is logged once, naming the address and the window, however often the address tries on', async () => {
    await failTimes(proxied, 10, '198.51.100.30');
    for (let i = 0; i < 3; i++) assertBlocked(await list(proxied, 'wrong-again', '198.51.100.30'));
    const blocks = proxied.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'address blocked for guessing the list password' && entry.address === '198.51.100.30');
    assert.equal(blocks.length, 1, 'one line per block');
    assert.equal(blocks[0]!.level, 'warn');
    assert.equal(blocks[0]!.windowS, 60);
    assert.equal(blocks[0]!.failures, 10);
  });

  test('a blocked address gets 429, not 401, for a wrong password too (checked before the password)', async () => {
    await failTimes(proxied, 10, '198.51.100.2');
    assertBlocked(await list(proxied, 'still-wrong', '198.51.100.2'));
    assertBlocked(await list(proxied, '', '198.51.100.2'));
  });

  test('the right password from another address is not affected', async () => {
    await failTimes(proxied, 10, '198.51.100.3');
    assertBlocked(await list(proxied, TEST_PASSWORD, '198.51.100.3'));
    const res = await list(proxied, TEST_PASSWORD, '198.51.100.4');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.json));
  });

  test('only the list is guarded: a blocked address still reads a user', async () => {
    await failTimes(proxied, 10, '198.51.100.5');
    const res = await request(proxied.baseUrl, 'GET', '/api/users/1', { headers: { 'x-forwarded-for': '198.51.100.5' } });
    assert.equal(res.status, 200);
  });

  test('nine wrong passwords, then the right one -> 200, and the count starts again', async () => {
    await failTimes(proxied, 9, '198.51.100.6');
    assert.equal((await list(proxied, TEST_PASSWORD, '198.51.100.6')).status, 200);
    await failTimes(proxied, 9, '198.51.100.6');
    assert.equal((await list(proxied, TEST_PASSWORD, '198.51.100.6')).status, 200);
  });

  test('once the window has passed, the right password from the blocked address -> 200', async () => {
    await failTimes(brief, 10, '198.51.100.7');
    assertBlocked(await list(brief, TEST_PASSWORD, '198.51.100.7'), 1);
    const res = await pollUntil('the block to end', async () => {
      const attempt = await list(brief, TEST_PASSWORD, '198.51.100.7');
      return attempt.status === 429 ? undefined : attempt;
    }, { timeoutMs: 10_000, intervalMs: 200 });
    assert.equal(res.status, 200);
  });
});

describe('the client address', () => {
  test('TRUST_PROXY=1: the last hop of X-Forwarded-For is the address; earlier hops a client wrote are ignored', async () => {
    await failTimes(proxied, 10, '203.0.113.66, 198.51.100.10');
    assertBlocked(await list(proxied, TEST_PASSWORD, '198.51.100.10'));
    assert.equal((await list(proxied, TEST_PASSWORD, '198.51.100.10, 203.0.113.66')).status, 200);
  });

  test('without TRUST_PROXY, X-Forwarded-For is ignored: changing it does not escape a block', async () => {
    for (let i = 0; i < 10; i++) {
      assert.equal((await list(direct, 'wrong', `203.0.113.${i}`)).status, 401);
    }
    assertBlocked(await list(direct, TEST_PASSWORD, '203.0.113.200'));
    assertBlocked(await list(direct, TEST_PASSWORD));
  });
});

describe('memory stays bounded under a flood of distinct addresses', () => {
  test('with room for 50 addresses, 2 000 distinct failing addresses push the oldest out and the service keeps serving', async () => {
    await failTimes(small, 9, '192.0.2.1');
    for (let start = 0; start < 2000; start += 100) {
      const batch = Array.from({ length: 100 }, (_, i) => list(small, 'wrong', `10.9.${(start + i) >> 8}.${(start + i) & 255}`));
      for (const res of await Promise.all(batch)) assert.equal(res.status, 401);
    }
    // Forgotten: a tenth failure starts a new count instead of blocking.
    assert.equal((await list(small, 'wrong', '192.0.2.1')).status, 401);
    assert.equal((await list(small, TEST_PASSWORD, '192.0.2.1')).status, 200);
    // A recent address is still counted.
    await failTimes(small, 10, '192.0.2.2');
    assertBlocked(await list(small, TEST_PASSWORD, '192.0.2.2'));
  });
});
