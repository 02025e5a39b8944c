import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { keyNew, type ApiKey } from '../helpers/key-new.js';
import { startService, type RunningService } from '../helpers/service.js';
import { launchChromium, skipReason, watchPage, type PageWatch } from './chromium.js';
import { authorize, OperationPanel } from './swagger-ui.js';

describe('"Authorize" on /apidocs with AUTH=all: a person sends an API key from the page', { skip: skipReason }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'authorize-ui-'));
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let key: ApiKey;
  const watch: PageWatch = { errors: [], requests: [], errorResponses: [] };
  const person = { name: 'Ada Authorized', email: 'ada@authorize.example' };
  const rowsOf = (email: string) => service.db.query<Array<{ id: number; name: string }>>('SELECT id, name FROM users WHERE email = ?', [email]);

  before(async () => {
    key = await keyNew('docs', 'users:write,users:read');
    const keysFile = join(dir, 'api-keys');
    writeFileSync(keysFile, `${key.line}\n`);
    [service, browser] = await Promise.all([startService('authorize_ui', { auth: { mode: 'all', apiKeysFile: keysFile } }), launchChromium()]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchPage(page, watch);
    const response = await page.goto(`${service.baseUrl}/apidocs`);
    assert.match(response?.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    await page.locator('.opblock').first().waitFor();
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      await service?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The tests share one page and run in order: first without a token, then authorized.
  test('before authorizing, createUser via "Try it out" is refused 401 and nothing is stored', async () => {
    const panel = new OperationPanel(page, 'createUser');
    await panel.tryItOut();
    await panel.fill({}, person);
    const refused = await panel.execute();
    assert.deepEqual([refused.status, refused.body], [401, { error: 'Authentication required' }]);
    assert.deepEqual(await rowsOf(person.email), []);
  });

  test('after "Authorize" with the key, createUser gives 201 and the row is stored; deleteUser 200 and the row is gone', async () => {
    await authorize(page, key.key);
    const create = new OperationPanel(page, 'createUser');
    const created = await create.execute();
    assert.deepEqual([created.status, created.body], [201, { message: 'User created successfully' }]);
    const rows = await rowsOf(person.email);
    assert.deepEqual(rows.map((row) => row.name), [person.name]);

    const remove = new OperationPanel(page, 'deleteUser');
    await remove.tryItOut();
    await remove.fill({ id: String(rows[0]!.id) });
    const deleted = await remove.execute();
    assert.deepEqual([deleted.status, deleted.body], [200, { message: 'User deleted successfully' }]);
    assert.deepEqual(await rowsOf(person.email), []);
  });

  test('the page ran under its Content-Security-Policy with no console error, and the one refusal was the 401 before authorizing', () => {
    assert.deepEqual(watch.errors, []);
    assert.deepEqual(watch.errorResponses, [`401 POST ${service.baseUrl}/api/users`]);
  });
});
