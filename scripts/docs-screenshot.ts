/**
 * `npm run docs:screenshot`: docs/apidocs.png, the README's picture of the docs page, made from the
 * running service. The service starts with nothing configured (as `npm start` serves it) on a fresh
 * database of the server the tests use, /apidocs is opened in headless Chromium at 1280x900 and
 * the page down to its last operation is written (every operation, without the schemas below
 * them); the database is dropped again.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { projectFile } from '../src/paths.js';
import { chooseTestDatabase } from './test-database.js';

const output = projectFile('docs/apidocs.png');
const viewport = { width: 1280, height: 900 };

const database = await chooseTestDatabase();
// The helpers read TEST_DB_* when they are loaded: the server chosen must be set first.
Object.assign(process.env, database.env);
const [{ startService }, { launchChromium, skipReason }] = await Promise.all([
  import('../test/helpers/service.js'),
  import('../test/browser/chromium.js'),
]);
try {
  if (skipReason !== undefined) throw new Error(skipReason);
  const service = await startService('docs_screenshot');
  try {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport });
      await page.goto(`${service.baseUrl}/apidocs`);
      await page.locator('.opblock').first().waitFor();
      mkdirSync(dirname(output), { recursive: true });
      // The page is not scrolled, so the box's place in the window is its place on the page.
      const lastSection = await page.locator('.opblock-tag-section').last().boundingBox();
      if (lastSection === null) throw new Error('the docs page shows no operations');
      const height = Math.ceil(lastSection.y + lastSection.height) + 16;
      await page.screenshot({ path: output, fullPage: true, clip: { x: 0, y: 0, width: viewport.width, height } });
    } finally {
      await browser.close();
    }
  } finally {
    await service.close();
  }
  process.stdout.write(`Wrote ${output}\n`);
} finally {
  await database.stop();
}
