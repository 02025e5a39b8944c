import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { projectFile } from '../../src/paths.js';
import { startService, type ServiceOptions } from '../helpers/service.js';
import { launchChromium, skipReason } from './chromium.js';

const viewport = { width: 1280, height: 900 };

/**
 * The served description grows with the settings (each adds its note): the page with nothing set,
 * and the one that says the most.
 */
const configurations: Array<{ name: string; options: ServiceOptions }> = [
  { name: 'default', options: {} },
  {
    name: 'every-note',
    options: {
      apiCompat: 'earlier',
      auth: { mode: 'all', jwt: { secret: 'a-jwt-secret-of-at-least-32-bytes-for-hs256' } },
      rateLimit: { requests: 100, windowSeconds: 10 },
      metrics: { onApiPort: true },
      events: { retentionSeconds: 86_400, webhooks: undefined },
    },
  },
];

describe('the first screen of /apidocs at 1280x900 shows operations, not only the description', { skip: skipReason }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
    mkdirSync(projectFile('test-artifacts'), { recursive: true });
  });
  after(() => browser?.close());

  for (const { name, options } of configurations) {
    test(`${name}: the first operation block lies wholly within the first viewport, unscrolled`, async () => {
      const service = await startService(`first_screen_${name}`.replace(/-/g, '_'), options);
      const page = await browser.newPage({ viewport });
      try {
        await page.goto(`${service.baseUrl}/apidocs`);
        const first = page.locator('.opblock').first();
        await first.waitFor();
        await page.screenshot({ path: projectFile(`test-artifacts/apidocs-first-screen-${name}.png`) });
        const box = await first.boundingBox();
        assert.equal(await page.evaluate('window.scrollY'), 0, 'the page is not scrolled');
        assert.ok(box !== null && box.y >= 0 && box.y + box.height <= viewport.height, `the first operation block ends at ${box ? box.y + box.height : '?'} px`);
      } finally {
        await page.close();
        await service.close();
      }
    });
  }
});
