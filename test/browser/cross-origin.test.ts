import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { browserWaitMs, launchChromium, skipReason, watchPage, type PageWatch } from './chromium.js';
import { startSecondOrigin, type SecondOrigin } from './second-origin.js';

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

  before(async () => {
    [service, app, browser] = await Promise.all([startService('xorigin'), startSecondOrigin(), launchChromium()]);
    page = await browser.newPage();
    watch = watchPage(page);
    await page.goto(app.origin + '/');
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      await Promise.all([app?.close(), service?.close()]);
    }
  });

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
