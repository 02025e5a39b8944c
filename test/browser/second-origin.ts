import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { RunningService } from '../helpers/service.js';
import { launchChromium, watchPage, type PageWatch } from './chromium.js';

export interface SecondOrigin {
  /** `http://127.0.0.1:<port>`: a different origin from the service's (the port differs). */
  origin: string;
  close(): Promise<void>;
}

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A web app on another origin</title></head>
<body><h1>A web app on another origin</h1></body></html>
`;

/**
 * A tiny web app's server: `/` is an empty page whose scripts call the service, and `/no-cors.json`
 * is JSON sent without any CORS header (what a browser must refuse to show another origin).
 */
export async function startSecondOrigin(): Promise<SecondOrigin> {
  const server = createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(page) });
      res.end(page);
    } else if (req.url === '/no-cors.json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"secret":true}');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The service, a second origin and Chromium, with the second origin's page open and watched. */
export interface CrossOriginPage {
  service: RunningService;
  app: SecondOrigin;
  browser: Browser;
  page: Page;
  watch: PageWatch;
  close(): Promise<void>;
}

export async function openCrossOriginPage(starting: Promise<RunningService>): Promise<CrossOriginPage> {
  const [service, app, browser] = await Promise.all([starting, startSecondOrigin(), launchChromium()]);
  const page = await browser.newPage();
  const watch = watchPage(page);
  await page.goto(app.origin + '/');
  return {
    service,
    app,
    browser,
    page,
    watch,
    async close() {
      try {
        await browser.close();
      } finally {
        await Promise.all([app.close(), service.close()]);
      }
    },
  };
}
