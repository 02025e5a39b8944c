import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startService, type RunningService } from '../helpers/service.js';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (.ci/run installs the Debian "chromium" package)`;
/** Upper bound for any single browser wait, so a broken page fails instead of hanging. */
const WAIT_MS = 15_000;

describe('the docs page under its Content-Security-Policy', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  before(async () => {
    service = await startService('security_csp');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    // Recorded from the first script on, before Swagger UI runs (page code as text: no DOM types here).
    await page.addInitScript({
      content: `window.cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
    });
    const response = await page.goto(`${service.baseUrl}/apidocs/`, { waitUntil: 'load' });
    assert.ok(response?.headers()['content-security-policy'], 'the page was served with its policy');
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('Swagger UI renders the API operations', async () => {
    await page.locator('.opblock').first().waitFor();
    assert.ok((await page.locator('.opblock').count()) >= 5);
    await page.locator('.opblock-get:has-text("/api/users/{id}")').first().waitFor();
  });

  test('"Try it out" on GET /api/users/{id} executes and shows 200', async () => {
    const operation = page.locator('.opblock-get:has-text("/api/users/{id}")').first();
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('input[placeholder="id"], tr[data-param-name="id"] input').first().fill('1');
    await operation.locator('button.execute').click();
    await operation.locator('.live-responses-table tr.response .response-col_status').first().waitFor();
    assert.equal((await operation.locator('.live-responses-table tr.response .response-col_status').first().innerText()).trim(), '200');
  });

  test('the policy blocked nothing and the console shows no errors', async () => {
    const violations = await page.evaluate<string[]>('window.cspViolations');
    assert.deepEqual(violations, []);
    assert.deepEqual(consoleErrors, []);
  });
});
