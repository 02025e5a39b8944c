import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { projectFile } from '../../src/paths.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { launchChromium, skipReason, watchPage, type PageWatch } from './chromium.js';
import { OperationPanel } from './swagger-ui.js';

interface OpenApiDocument {
  info: { title: string };
  paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
}
const spec = JSON.parse(readFileSync(projectFile('openapi.json'), 'utf8')) as OpenApiDocument;
/** The element id Swagger UI gives each operation's panel: `operations-<first tag>-<operationId>`. */
const panelIdsInSpec = Object.values(spec.paths)
  .flatMap((item) => Object.values(item))
  .filter((operation) => operation.operationId !== undefined)
  .map((operation) => `operations-${operation.tags?.[0] ?? 'default'}-${operation.operationId}`)
  .sort();
const userOperations = ['listUsers', 'createUser', 'getUser', 'updateUser', 'patchUser', 'deleteUser'];
const overviewScreenshotPath = projectFile('test-artifacts/apidocs.png');
const tryItOutScreenshotPath = projectFile('test-artifacts/apidocs-try-it-out.png');

describe('the API reference at /apidocs, used in Chromium as a person would', { skip: skipReason }, () => {
  let service: RunningService;
  let browser: Browser;
  let context: BrowserContext;
  /** What every page opened by these tests complained about and requested. */
  const watch: PageWatch = { errors: [], requests: [], errorResponses: [] };
  const policies = new Set<string | undefined>();

  before(async () => {
    // With metrics on its API port and change events on, the server serves openapi.json as it is, `/metrics` and the stream included.
    [service, browser] = await Promise.all([startService('docs_page', { metrics: { onApiPort: true }, events: { retentionSeconds: 86_400, webhooks: undefined } }), launchChromium()]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      await service?.close();
    }
  });

  /** A new tab on a docs URL, once Swagger UI has drawn the operations; each test starts from a fresh page. */
  const openDocs = async (path = '/apidocs'): Promise<Page> => {
    const page = await context.newPage();
    watchPage(page, watch);
    const response = await page.goto(service.baseUrl + path);
    policies.add(response?.headers()['content-security-policy']);
    await page.locator('.opblock').first().waitFor();
    return page;
  };
  const withDocs = async (use: (page: Page) => Promise<void>, path?: string): Promise<void> => {
    const page = await openDocs(path);
    try {
      await use(page);
    } finally {
      await page.close();
    }
  };
  const panelIdsShown = async (page: Page): Promise<string[]> =>
    (await page.locator('.opblock-tag-section .opblock').evaluateAll((blocks) => blocks.map((block) => block.id))).sort();
  const userRow = async (id: number) =>
    (await service.db.query<Array<{ name: string; email: string }>>('SELECT name, email FROM users WHERE id = ?', [id]))[0];

  test("/apidocs shows the service's own API: its title and every operation, the five user ones included", () =>
    withDocs(async (page) => {
      const title = (await page.locator('.information-container .title').textContent()) ?? '';
      assert.ok(title.startsWith(spec.info.title), `title shown: ${title}`);
      assert.deepEqual(await panelIdsShown(page), panelIdsInSpec);
      for (const operationId of userOperations) {
        assert.ok(panelIdsInSpec.includes(`operations-users-${operationId}`), `${operationId} is in openapi.json`);
      }
      assert.doesNotMatch((await page.locator('body').textContent()) ?? '', /petstore/i);
    }));

  test('/docs redirects to /apidocs/, which shows the same operations', () =>
    withDocs(async (page) => {
      assert.equal(page.url(), `${service.baseUrl}/apidocs/`);
      assert.deepEqual(await panelIdsShown(page), panelIdsInSpec);
    }, '/docs'));

  test('"Try it out" sends no shared example: a create carries no Idempotency-Key nor X-Request-Id of the page\'s making, and the stream\'s `after` starts empty', () =>
    withDocs(async (page) => {
      const sent: Array<Record<string, string>> = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && request.url() === `${service.baseUrl}/api/users`) sent.push(request.headers());
      });
      const create = new OperationPanel(page, 'createUser');
      await create.tryItOut();
      await create.fill({}, { name: 'Visitor', email: 'visitor@example.com' });
      const created = await create.execute();
      assert.equal(created.status, 201);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!['idempotency-key'], undefined, 'no Idempotency-Key: visitors never replay each other\'s creates');
      assert.equal(sent[0]!['x-request-id'], undefined, 'no fixed X-Request-Id');
      const events = new OperationPanel(page, 'streamUserEvents');
      await events.tryItOut();
      for (const name of ['after', 'Last-Event-ID']) {
        const field = page.locator(`.opblock[id$="-streamUserEvents"] tr[data-param-name="${name}"] input`);
        if ((await field.count()) > 0) assert.equal(await field.inputValue(), '', `${name} starts empty`);
      }
    }));

  test('listUsers via "Try it out": 200 with the stored users from this origin, 401 with a wrong pwd', () =>
    withDocs(async (page) => {
      const panel = new OperationPanel(page, 'listUsers');
      await panel.tryItOut();
      await panel.fill({ pwd: TEST_PASSWORD });
      const listed = await panel.execute();
      assert.equal(listed.status, 200);
      assert.equal(listed.requestUrl, `${service.baseUrl}/api/users?pwd=${TEST_PASSWORD}`, 'servers "/" is this origin');
      const stored = await service.db.users();
      assert.deepEqual((listed.body as Array<{ id: number }>).map((user) => user.id), stored.map((user) => user.id));

      await panel.fill({ pwd: 'wrong-password' });
      assert.deepEqual(await panel.execute(), {
        status: 401,
        body: { error: 'Invalid password' },
        requestUrl: `${service.baseUrl}/api/users?pwd=wrong-password`,
      });
    }));

  test('listUsers via "Try it out" with limit and after: 200 with one page of the stored users; after alone -> 400', () =>
    withDocs(async (page) => {
      const panel = new OperationPanel(page, 'listUsers');
      await panel.tryItOut();
      await panel.fill({ pwd: TEST_PASSWORD, limit: '3', after: '2' });
      const listed = await panel.execute();
      assert.equal(listed.status, 200);
      assert.equal(listed.requestUrl, `${service.baseUrl}/api/users?pwd=${TEST_PASSWORD}&limit=3&after=2`);
      const expected = (await service.db.users()).filter((user) => user.id > 2).slice(0, 3);
      assert.deepEqual((listed.body as Array<{ id: number }>).map((user) => user.id), expected.map((user) => user.id));

      // Swagger UI itself refuses a limit outside 1-1000 before sending; `after` alone reaches the service.
      await panel.fill({ pwd: TEST_PASSWORD, limit: '', after: '3' });
      const refused = await panel.execute();
      assert.deepEqual([refused.status, refused.body], [400, { error: 'after requires limit' }]);
    }));

  test('listUsers via "Try it out" with email: 200 with the one user who has it, found case-insensitively', () =>
    withDocs(async (page) => {
      const panel = new OperationPanel(page, 'listUsers');
      await panel.tryItOut();
      await panel.fill({ pwd: TEST_PASSWORD, email: 'JANE@example.com' });
      const found = await panel.execute();
      assert.equal(found.status, 200, JSON.stringify(found));
      assert.equal(found.requestUrl, `${service.baseUrl}/api/users?pwd=${TEST_PASSWORD}&email=JANE%40example.com`);
      const jane = (await service.db.users()).filter((user) => user.email === 'jane@example.com');
      assert.equal(jane.length, 1);
      assert.deepEqual((found.body as Array<{ id: number; email: string }>).map((user) => [user.id, user.email]), [[jane[0]!.id, 'jane@example.com']]);
    }));

  test('getUser via "Try it out": 200 with the user for id 1, 404 for an unknown id', () =>
    withDocs(async (page) => {
      const panel = new OperationPanel(page, 'getUser');
      await panel.tryItOut();
      await panel.fill({ id: '1' });
      const found = await panel.execute();
      assert.equal(found.status, 200, JSON.stringify(found));
      assert.equal(found.requestUrl, `${service.baseUrl}/api/users/1`);
      const { created_at: _createdAt, ...shown } = found.body as Record<string, unknown>;
      assert.deepEqual(shown, { id: 1, ...(await userRow(1)) });

      await panel.fill({ id: '999999' });
      const missing = await panel.execute();
      assert.deepEqual([missing.status, missing.body], [404, { error: 'User not found' }]);
    }));

  test('createUser via "Try it out": 201, and the user is in the database', () =>
    withDocs(async (page) => {
      const panel = new OperationPanel(page, 'createUser');
      await panel.tryItOut();
      await panel.fill({}, { name: 'Ada via Swagger UI', email: 'ada@swagger.example' });
      const created = await panel.execute();
      assert.deepEqual([created.status, created.body], [201, { message: 'User created successfully' }]);
      const rows = await service.db.query<Array<{ name: string }>>('SELECT name FROM users WHERE email = ?', [
        'ada@swagger.example',
      ]);
      assert.deepEqual(rows.map((row) => row.name), ['Ada via Swagger UI']);
    }));

  test('updateUser via "Try it out": 200 and the row is replaced; 400 for an empty name, row unchanged', () =>
    withDocs(async (page) => {
      const panel = new OperationPanel(page, 'updateUser');
      await panel.tryItOut();
      await panel.fill({ id: '4' }, { name: 'Renamed in the docs', email: 'four@swagger.example' });
      const updated = await panel.execute();
      assert.deepEqual([updated.status, updated.body], [200, { message: 'User updated successfully' }]);
      assert.deepEqual({ ...(await userRow(4)) }, { name: 'Renamed in the docs', email: 'four@swagger.example' });

      await panel.fill({ id: '4' }, { name: '', email: 'empty@swagger.example' });
      const rejected = await panel.execute();
      assert.deepEqual([rejected.status, rejected.body], [400, { error: 'Name and email required' }]);
      assert.deepEqual({ ...(await userRow(4)) }, { name: 'Renamed in the docs', email: 'four@swagger.example' });
    }));

  test('patchUser via "Try it out": 200 and only the name changes; 400 for an empty name, row unchanged', () =>
    withDocs(async (page) => {
      const panel = new OperationPanel(page, 'patchUser');
      await panel.tryItOut();
      const before = (await userRow(5))!;
      await panel.fill({ id: '5' }, { name: 'Patched in the docs' });
      const patched = await panel.execute();
      assert.deepEqual([patched.status, patched.body], [200, { message: 'User updated successfully' }]);
      assert.deepEqual({ ...(await userRow(5)) }, { name: 'Patched in the docs', email: before.email });

      await panel.fill({ id: '5' }, { name: '' });
      const rejected = await panel.execute();
      assert.deepEqual([rejected.status, rejected.body], [400, { error: 'name must not be empty' }]);
      assert.deepEqual({ ...(await userRow(5)) }, { name: 'Patched in the docs', email: before.email });
    }));

  test('deleteUser via "Try it out": 200 and the row is gone, then 404 for the same id', () =>
    withDocs(async (page) => {
      const panel = new OperationPanel(page, 'deleteUser');
      await panel.tryItOut();
      await panel.fill({ id: '8' });
      const deleted = await panel.execute();
      assert.deepEqual([deleted.status, deleted.body], [200, { message: 'User deleted successfully' }]);
      assert.equal(await userRow(8), undefined);

      const again = await panel.execute();
      assert.deepEqual([again.status, again.body], [404, { error: 'User not found' }]);
    }));

  test('screenshots after the run: the overview of every operation, and one call made with "Try it out"', async () => {
    mkdirSync(projectFile('test-artifacts'), { recursive: true });
    await withDocs(async (page) => {
      const overview = await page.screenshot({ path: overviewScreenshotPath, fullPage: true });
      assert.equal(overview.subarray(1, 4).toString(), 'PNG');
      assert.equal(overview.readUInt32BE(16), 1280, 'the image is as wide as the viewport');

      const panel = new OperationPanel(page, 'getUser');
      await panel.tryItOut();
      await panel.fill({ id: '1' });
      assert.equal((await panel.execute()).status, 200);
      const tried = await page.screenshot({ path: tryItOutScreenshotPath, fullPage: true });
      assert.ok(tried.readUInt32BE(20) > overview.readUInt32BE(20), 'the executed call made the page taller');
    });
  });

  // Runs last so that it covers every page the tests above opened.
  test('every page ran under its Content-Security-Policy with no console error, and nothing left the machine', () => {
    assert.deepEqual([...policies].map((policy) => /default-src 'self'/.test(policy ?? '')), [true]);
    // Also covers requests the policy blocked: Chromium logs those as console errors and never sends them.
    assert.deepEqual(watch.errors, []);
    const origin = new URL(service.baseUrl).origin;
    assert.ok(watch.requests.some((url) => url === `${origin}/apidocs/openapi.json`), 'the page loaded its description, /apidocs/openapi.json');
    for (const url of watch.requests) {
      assert.ok(url.startsWith('data:') || new URL(url).origin === origin, `request to another origin: ${url}`);
    }
  });
});
