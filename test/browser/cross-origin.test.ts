import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { browserWaitMs, skipReason, watchPage, type PageWatch } from './chromium.js';
import { openCrossOriginPage, type CrossOriginPage, type SecondOrigin } from './second-origin.js';

interface PageResponse {
  status: number;
  /** `cors` for a cross-origin response the page was allowed to read. */
  type: string;
  body: unknown;
}

describe('a web app on another origin calls every endpoint with fetch()', { skip: skipReason }, () => {
  let service: RunningService;
  let app: SecondOrigin;
  let browser: Browser;
  let page: Page;
  let watch: PageWatch;

  let session: CrossOriginPage | undefined;

  before(async () => {
    session = await openCrossOriginPage(startService('xorigin'));
    ({ service, app, browser, page, watch } = session);
  });
  after(() => session?.close());

  /** fetch() run by the second origin's page, as its own scripts would. */
  const fetchFromApp = (method: string, path: string, json?: unknown): Promise<PageResponse> =>
    page.evaluate(
      async ({ method, url, json, waitMs }) => {
        const init: RequestInit = { method, signal: AbortSignal.timeout(waitMs) };
        if (json !== undefined) {
          init.headers = { 'Content-Type': 'application/json' };
          init.body = JSON.stringify(json);
        }
        const response = await fetch(url, init);
        const text = await response.text();
        return { status: response.status, type: response.type, body: text === '' ? null : JSON.parse(text) };
      },
      { method, url: service.baseUrl + path, json, waitMs: browserWaitMs },
    );

  /** fetch() with request headers of its own, returning also the response headers a page can read. */
  const fetchReadingHeaders = (
    method: string,
    path: string,
    options: { json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<PageResponse & { read: Record<string, string | null> }> =>
    page.evaluate(
      async ({ method, url, json, headers, waitMs }) => {
        const init: RequestInit = { method, headers: { ...headers }, signal: AbortSignal.timeout(waitMs) };
        if (json !== undefined) {
          init.headers = { ...headers, 'Content-Type': 'application/json' };
          init.body = JSON.stringify(json);
        }
        const response = await fetch(url, init);
        const text = await response.text();
        const read = Object.fromEntries(['location', 'etag', 'link', 'content-type'].map((name) => [name, response.headers.get(name)]));
        return { status: response.status, type: response.type, body: text === '' ? null : JSON.parse(text), read };
      },
      { method, url: service.baseUrl + path, json: options.json, headers: options.headers ?? {}, waitMs: browserWaitMs },
    );

  /** The preflights the service answered, as `path status` lines from its access log. */
  const preflightsAnswered = (): string[] =>
    service.logs
      .map((line) => JSON.parse(line) as { msg: string; method?: string; path?: string; status?: number })
      .filter((entry) => entry.msg === 'request' && entry.method === 'OPTIONS')
      .map((entry) => `${entry.path} ${entry.status}`);

  test('the page really is on another origin than the service', async () => {
    const pageOrigin = await page.evaluate('location.origin');
    assert.equal(pageOrigin, app.origin);
    assert.notEqual(new URL(service.baseUrl).origin, pageOrigin);
  });

  test('GET /api/users?pwd=<password> -> 200 and the list, readable cross-origin', async () => {
    const res = await fetchFromApp('GET', `/api/users?pwd=${TEST_PASSWORD}`);
    assert.equal(res.status, 200);
    assert.equal(res.type, 'cors');
    const stored = await service.db.users();
    assert.deepEqual((res.body as Array<{ id: number }>).map((user) => user.id), stored.map((user) => user.id));
  });

  test('GET /api/users with a wrong pwd -> 401, and the error body is readable cross-origin', async () => {
    const res = await fetchFromApp('GET', '/api/users?pwd=wrong');
    assert.deepEqual(res, { status: 401, type: 'cors', body: { error: 'Invalid password' } });
  });

  test('GET /api/users/1 -> 200 and the user', async () => {
    const res = await fetchFromApp('GET', '/api/users/1');
    assert.equal(res.status, 200);
    const [first] = await service.db.users();
    assert.deepEqual({ ...(res.body as object), created_at: undefined }, { ...first, created_at: undefined });
  });

  test('GET /api/users/<unknown id> -> 404, and the error body is readable cross-origin', async () => {
    const res = await fetchFromApp('GET', '/api/users/999999');
    assert.deepEqual(res, { status: 404, type: 'cors', body: { error: 'User not found' } });
  });

  test('POST /api/users with a JSON body -> preflight 204, then 201 and the user is stored', async () => {
    const res = await fetchFromApp('POST', '/api/users', { name: 'Grace Hopper', email: 'grace@cross.example' });
    assert.deepEqual(res, { status: 201, type: 'cors', body: { message: 'User created successfully' } });
    assert.ok(preflightsAnswered().includes('/api/users 204'), 'the JSON POST was preflighted');
    const stored = await service.db.query<unknown[]>('SELECT id FROM users WHERE email = ?', ['grace@cross.example']);
    assert.equal(stored.length, 1);
  });

  test('POST /api/users with an empty name -> 400, readable cross-origin, nothing stored', async () => {
    const res = await fetchFromApp('POST', '/api/users', { name: '', email: 'nobody@cross.example' });
    assert.deepEqual(res, { status: 400, type: 'cors', body: { error: 'Name and email required' } });
    const stored = await service.db.query<unknown[]>('SELECT id FROM users WHERE email = ?', ['nobody@cross.example']);
    assert.equal(stored.length, 0);
  });

  test('PUT /api/users/2 with a JSON body -> preflight 204, then 200 and the user is replaced', async () => {
    const res = await fetchFromApp('PUT', '/api/users/2', { name: 'Renamed Two', email: 'two@cross.example' });
    assert.deepEqual(res, { status: 200, type: 'cors', body: { message: 'User updated successfully' } });
    assert.ok(preflightsAnswered().includes('/api/users/2 204'), 'the JSON PUT was preflighted');
    const [row] = await service.db.query<Array<{ name: string; email: string }>>(
      'SELECT name, email FROM users WHERE id = 2',
    );
    assert.deepEqual({ ...row }, { name: 'Renamed Two', email: 'two@cross.example' });
  });

  test('PUT /api/users/3 with an empty name -> 400 readable cross-origin, the user unchanged', async () => {
    const before = await service.db.query<unknown[]>('SELECT name, email FROM users WHERE id = 3');
    const res = await fetchFromApp('PUT', '/api/users/3', { name: '', email: 'three@cross.example' });
    assert.deepEqual(res, { status: 400, type: 'cors', body: { error: 'Name and email required' } });
    assert.deepEqual(await service.db.query<unknown[]>('SELECT name, email FROM users WHERE id = 3'), before);
  });

  test('PUT /api/users/<unknown id> -> 404 readable cross-origin', async () => {
    const res = await fetchFromApp('PUT', '/api/users/999999', { name: 'Ghost', email: 'ghost@cross.example' });
    assert.deepEqual(res, { status: 404, type: 'cors', body: { error: 'User not found' } });
  });

  test('DELETE /api/users/9 -> preflight 204, then 200 and the user is gone; again -> 404', async () => {
    const res = await fetchFromApp('DELETE', '/api/users/9');
    assert.deepEqual(res, { status: 200, type: 'cors', body: { message: 'User deleted successfully' } });
    assert.ok(preflightsAnswered().includes('/api/users/9 204'), 'the DELETE was preflighted');
    assert.deepEqual(await service.db.query<unknown[]>('SELECT id FROM users WHERE id = 9'), []);
    const again = await fetchFromApp('DELETE', '/api/users/9');
    assert.deepEqual(again, { status: 404, type: 'cors', body: { error: 'User not found' } });
  });

  test('POST /api/users -> 201, and the page reads Location, which names the stored user', async () => {
    const res = await fetchReadingHeaders('POST', '/api/users', { json: { name: 'Located Cross', email: 'located@cross.example' } });
    assert.equal(res.status, 201);
    const location = res.read.location ?? assert.fail('Location not readable cross-origin');
    const [row] = await service.db.query<Array<{ id: number }>>('SELECT id FROM users WHERE email = ?', ['located@cross.example']);
    assert.equal(location, `/api/users/${row!.id}`);
    const read = await fetchFromApp('GET', location);
    assert.equal((read.body as { name: string }).name, 'Located Cross');
  });

  test('GET /api/users?pwd=…&limit=2 -> 200, and the page reads the next Link', async () => {
    const res = await fetchReadingHeaders('GET', `/api/users?pwd=${TEST_PASSWORD}&limit=2`);
    assert.equal(res.status, 200);
    assert.equal((res.body as unknown[]).length, 2);
    assert.match(res.read.link ?? '', /^<\/api\/users\?limit=2&after=\d+>; rel="next"$/);
  });

  test('GET /api/users/5: the page reads the ETag; If-None-Match with it -> 304; PUT with If-Match -> preflight, 200 and the new ETag; the old tag then -> 412', async () => {
    const read = await fetchReadingHeaders('GET', '/api/users/5');
    const tag = read.read.etag ?? assert.fail('ETag not readable cross-origin');
    const revalidated = await fetchReadingHeaders('GET', '/api/users/5', { headers: { 'If-None-Match': tag } });
    assert.deepEqual([revalidated.status, revalidated.body, revalidated.read.etag], [304, null, tag]);

    const put = await fetchReadingHeaders('PUT', '/api/users/5', { json: { name: 'Matched Cross', email: 'matched@cross.example' }, headers: { 'If-Match': tag } });
    assert.equal(put.status, 200);
    assert.ok(preflightsAnswered().includes('/api/users/5 204'), 'the PUT with If-Match was preflighted');
    assert.notEqual(put.read.etag, null);
    assert.notEqual(put.read.etag, tag);

    const stale = await fetchReadingHeaders('PATCH', '/api/users/5', { json: { name: 'Too late' }, headers: { 'If-Match': tag } });
    assert.deepEqual([stale.status, stale.type, stale.body], [412, 'cors', { error: 'The user has changed: If-Match does not match its ETag' }]);
    const [row] = await service.db.query<Array<{ name: string }>>('SELECT name FROM users WHERE id = 5');
    assert.equal(row!.name, 'Matched Cross');
  });

  test('PATCH /api/users/6 -> preflight 204, then 200 and only the name changes', async () => {
    const res = await fetchReadingHeaders('PATCH', '/api/users/6', { json: { name: 'Patched Cross' } });
    assert.deepEqual([res.status, res.body], [200, { message: 'User updated successfully' }]);
    assert.ok(preflightsAnswered().includes('/api/users/6 204'), 'the PATCH was preflighted');
    const [row] = await service.db.query<Array<{ name: string; email: string }>>('SELECT name, email FROM users WHERE id = 6');
    assert.deepEqual({ ...row }, { name: 'Patched Cross', email: 'diana@example.com' });
  });

  test('a method the path does not serve (PATCH /api/users, PUT /api/users) -> the page reads the 405 JSON, not a CORS failure', async () => {
    for (const method of ['PATCH', 'PUT']) {
      const res = await fetchFromApp(method, '/api/users', { name: 'x', email: 'x@cross.example' });
      assert.deepEqual(res, { status: 405, type: 'cors', body: { error: 'Method not allowed' } });
    }
  });

  test('no CORS error or other console error on the calling page; its only 4xx answers are the API errors above', () => {
    assert.deepEqual(watch.errors, []);
    for (const line of watch.errorResponses) {
      assert.ok(line.startsWith(`4`) && line.includes(` ${service.baseUrl}/api/users`), line);
    }
  });

  test('control: this browser does refuse a cross-origin response that lacks CORS headers', async () => {
    const control = await browser.newPage();
    try {
      watchPage(control);
      await control.goto(service.baseUrl + '/healthz');
      const outcome = await control.evaluate(
        ({ url, waitMs }) =>
          fetch(url, { signal: AbortSignal.timeout(waitMs) }).then(
            (response) => `read ${response.status}`,
            (error: Error) => `refused: ${error.name}`,
          ),
        { url: app.origin + '/no-cors.json', waitMs: browserWaitMs },
      );
      assert.equal(outcome, 'refused: TypeError');
    } finally {
      await control.close();
    }
  });
});
