import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium; `.ci/run` installs the `chromium` package when it is missing. */
export const chromiumPath = '/usr/bin/chromium';

/** Why the browser tests cannot run on this machine, or undefined when they can. */
export const skipReason: string | undefined = existsSync(chromiumPath)
  ? undefined
  : `browser tests skipped: no Chromium at ${chromiumPath} (install the Debian "chromium" package; .ci/run does)`;

/** Upper bound for any single browser action or wait, so a broken page fails fast instead of hanging. */
export const browserWaitMs = 15_000;

/** One headless Chromium for a test file, with a fresh throw-away profile and nothing phoning home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface PageWatch {
  /** Console errors (CSP and CORS violations included), uncaught exceptions and failed requests. */
  errors: string[];
  /** Every URL the page requested (documents, scripts, styles, images, fetch/XHR). */
  requests: string[];
  /** `status METHOD url` of every response with a status of 400 or more. */
  errorResponses: string[];
}

// Chromium's console line for any 4xx/5xx response; those are recorded in errorResponses instead,
// since the tests provoke them on purpose and check them there with their URL.
const httpStatusConsoleLine = /^Failed to load resource: the server responded with a status of \d{3}\b/;

/** Records what a page complains about and every request it makes, from now on (into `watch` if given). */
export function watchPage(page: Page, watch: PageWatch = { errors: [], requests: [], errorResponses: [] }): PageWatch {
  page.on('console', (message) => {
    if (message.type() === 'error' && !httpStatusConsoleLine.test(message.text())) {
      watch.errors.push(`console: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => watch.errors.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) =>
    watch.errors.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText})`),
  );
  page.on('request', (request) => watch.requests.push(request.url()));
  page.on('response', (response) => {
    if (response.status() >= 400) {
      watch.errorResponses.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    }
  });
  page.setDefaultTimeout(browserWaitMs);
  page.setDefaultNavigationTimeout(browserWaitMs);
  return watch;
}
