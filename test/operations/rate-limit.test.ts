import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ApiResponse, request, type RequestOptions } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

/** RATE_LIMIT=5/60s behind a proxy: every test is its own client (X-Forwarded-For), so none spends another's allowance. */
let limited: RunningService;
/** RATE_LIMIT=3/1s: a window short enough to see it end. */
let brief: RunningService;
/** RATE_LIMIT=2/60s counting at most 3 clients at once, to show the bound on memory. */
let small: RunningService;
/** RATE_LIMIT off, the default. */
let unlimited: RunningService;

before(async () => {
  limited = await startService('rate_limit', { trustProxy: true, rateLimit: { requests: 5, windowSeconds: 60 }, metrics: { onApiPort: true } });
  brief = await startService('rate_limit_brief', { db: limited.db, trustProxy: true, rateLimit: { requests: 3, windowSeconds: 1 } });
  small = await startService('rate_limit_small', {
    db: limited.db,
    trustProxy: true,
    rateLimit: { requests: 2, windowSeconds: 60, testing: { maxTracked: 3 } },
  });
  unlimited = await startService('rate_limit_off', { db: limited.db, trustProxy: true });
});
after(async () => {
  await Promise.all([brief?.close(), small?.close(), unlimited?.close()]);
  await limited?.close();
});

const as = (client: string, options: RequestOptions = {}): RequestOptions => ({ ...options, headers: { ...options.headers, 'x-forwarded-for': client } });
const read = (service: RunningService, client: string): Promise<ApiResponse> => request(service.baseUrl, 'GET', '/api/users/1', as(client));

/** `RateLimit: "default";r=<r>;t=<t>` read into its numbers (draft-ietf-httpapi-ratelimit-headers-11). */
function limitOf(res: ApiResponse): { r: number; t: number } {
  const header = res.headers.get('ratelimit') ?? '';
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(header);
  assert.ok(match, `RateLimit: ${header}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

async function spend(service: RunningService, client: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) assert.equal((await read(service, client)).status, 200, `request ${i + 1} is admitted`);
}

function assertRefused(res: ApiResponse, requests: number, windowSeconds: number): void {
  assert.equal(res.status, 429, res.text);
  assert.deepEqual(res.json, { error: 'Too many requests' });
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After: ${retryAfter}`);
  assert.equal(res.headers.get('ratelimit-policy'), `"default";q=${requests};w=${windowSeconds}`);
  assert.deepEqual(limitOf(res), { r: 0, t: retryAfter }, 'the window ends when Retry-After says');
}

describe('RATE_LIMIT=5/60s: 5 API requests per client per window, the 6th -> 429', () => {
  test('every admitted API response carries RateLimit-Policy "default";q=5;w=60 and RateLimit counting down r', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await read(limited, '198.51.100.1');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-policy'), '"default";q=5;w=60');
      const { r, t } = limitOf(res);
      assert.equal(r, 5 - i, `r after request ${i}`);
      assert.ok(t >= 1 && t <= 60, `t=${t}`);
    }
  });

  test('the 6th request -> 429 {"error": "Too many requests"} with Retry-After, RateLimit-Policy and RateLimit r=0', async () => {
    await spend(limited, '198.51.100.2', 5);
    assertRefused(await read(limited, '198.51.100.2'), 5, 60);
  });

  test('a refused request never reaches its route: a create over the limit stores nothing', async () => {
    await spend(limited, '198.51.100.3', 5);
    const email = 'rate-limit-refused@example.com';
    assertRefused(await request(limited.baseUrl, 'POST', '/api/users', as('198.51.100.3', { json: { name: 'Refused', email } })), 5, 60);
    const stored = await limited.db.query<unknown[]>('SELECT id FROM users WHERE email = ?', [email]);
    assert.equal(stored.length, 0);
  });

  test('errors count and carry the headers too: a 404, a 400 and the list\'s 401 spend the allowance', async () => {
    const client = '198.51.100.5';
    const answers = [
      await request(limited.baseUrl, 'GET', '/api/nothing', as(client)),
      await request(limited.baseUrl, 'POST', '/api/users', as(client, { json: { name: '' } })),
      await request(limited.baseUrl, 'GET', '/api/users?pwd=wrong', as(client)),
    ];
    assert.deepEqual(answers.map((res) => res.status), [404, 400, 401]);
    assert.deepEqual(answers.map((res) => limitOf(res).r), [4, 3, 2]);
  });

  test('the list, its password guessing limit aside, is limited like any API request', async () => {
    await spend(limited, '198.51.100.6', 4);
    const res = await request(limited.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`, as('198.51.100.6'));
    assert.equal(res.status, 200);
    assert.equal(limitOf(res).r, 0);
    assertRefused(await request(limited.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`, as('198.51.100.6')), 5, 60);
  });

  test('each client has its own allowance: another address is admitted while one is refused', async () => {
    await spend(limited, '198.51.100.7', 5);
    assertRefused(await read(limited, '198.51.100.7'), 5, 60);
    const other = await read(limited, '198.51.100.8');
    assert.equal(other.status, 200);
    assert.equal(limitOf(other).r, 4);
  });

  test('the client is the last hop of X-Forwarded-For (TRUST_PROXY=1): an earlier hop the client wrote does not give a new allowance', async () => {
    await spend(limited, '198.51.100.9', 5);
    assertRefused(await read(limited, '203.0.113.1, 198.51.100.9'), 5, 60);
  });

  const exempt: Array<[method: string, path: string, status: number]> = [
    ['GET', '/healthz', 200],
    ['GET', '/readyz', 200],
    ['GET', '/metrics', 200],
    ['GET', '/apidocs', 200],
    ['GET', '/openapi.json', 200],
    ['OPTIONS', '/api/users', 204],
  ];
  for (const [i, [method, path, status]] of exempt.entries()) {
    test(`${method} ${path} is not limited: no RateLimit headers, and a refused client still gets it`, async () => {
      const client = `198.51.101.${i}`;
      await spend(limited, client, 5);
      const headers: Record<string, string> = method === 'OPTIONS' ? { origin: 'http://elsewhere.example', 'access-control-request-method': 'POST' } : {};
      const res = await request(limited.baseUrl, method, path, as(client, { headers }));
      assert.equal(res.status, status, res.text);
      assert.equal(res.headers.get('ratelimit'), null);
      assert.equal(res.headers.get('ratelimit-policy'), null);
    });
  }
});

describe('RATE_LIMIT windows', () => {
  test('once the window has passed, the refused client is admitted again with a whole allowance', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await read(brief, '198.51.100.20')).status, 200);
    assertRefused(await read(brief, '198.51.100.20'), 3, 1);
    const res = await pollUntil('the window to end', async () => {
      const attempt = await read(brief, '198.51.100.20');
      return attempt.status === 429 ? undefined : attempt;
    }, { timeoutMs: 10_000, intervalMs: 200 });
    assert.equal(res.status, 200);
    assert.equal(limitOf(res).r, 2, 'a new window: this request is its first');
  });
});

describe('RATE_LIMIT memory stays bounded under a flood of distinct clients', () => {
  test('with room for 3 clients, 500 distinct clients push the oldest out: it starts afresh, a recent one is still counted', async () => {
    await spend(small, '192.0.2.1', 2);
    assertRefused(await read(small, '192.0.2.1'), 2, 60);
    for (let start = 0; start < 500; start += 50) {
      const batch = Array.from({ length: 50 }, (_, i) => read(small, `10.8.${(start + i) >> 8}.${(start + i) & 255}`));
      for (const res of await Promise.all(batch)) assert.equal(res.status, 200);
    }
    const recent = await read(small, '10.8.1.243');
    assert.equal(limitOf(recent).r, 0, 'the last client of the flood is still counted: this is its second request');
    assertRefused(await read(small, '10.8.1.243'), 2, 60);
    const forgotten = await read(small, '192.0.2.1');
    assert.equal(forgotten.status, 200, 'the first client was forgotten: a new window');
    assert.equal(limitOf(forgotten).r, 1);
  });
});

describe('RATE_LIMIT off (the default)', () => {
  test('no RateLimit headers and no 429, however many requests one client sends', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await read(unlimited, '198.51.100.30');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit'), null);
      assert.equal(res.headers.get('ratelimit-policy'), null);
    }
  });
});
