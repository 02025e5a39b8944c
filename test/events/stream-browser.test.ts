import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserWaitMs, skipReason, type PageWatch } from '../browser/chromium.js';
import { openCrossOriginPage, type CrossOriginPage } from '../browser/second-origin.js';
import { portOf, request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { numberedEvents } from './support/numbered.js';

const STREAM = `/api/users/events?pwd=${TEST_PASSWORD}`;

/** What the page's EventSource received, as its listeners saw it. */
interface Received {
  lastEventId: string;
  origin: string;
  data: { id: number; type: string; request_id: string | null; data: { id: number; name: string; email: string } };
}

/** The page's EventSource, as far as these tests use it (the project's types have no DOM). */
interface PageSource {
  addEventListener(type: string, listener: (event: { lastEventId: string; origin: string; data: string }) => void): void;
  onopen: (() => void) | null;
  onerror: (() => void) | null;
  close(): void;
}

/** What the tests keep on the page's global object. */
interface PageGlobals {
  EventSource: new (url: string) => PageSource;
  source: PageSource;
  received: unknown[];
}

describe('EventSource on a page of another origin', { skip: skipReason }, () => {
  let service: RunningService;
  let page: Page;
  let watch: PageWatch;

  let session: CrossOriginPage | undefined;

  before(async () => {
    session = await openCrossOriginPage(startService('stream_browser', { events: { retentionSeconds: 86_400, webhooks: undefined }, eventStream: { pollMs: 50 } }));
    ({ service, page, watch } = session);
  });
  after(() => session?.close());

  /** Opens an EventSource on `url` in the page, collecting user.created events in `window.received`; resolves once it is open. */
  const openSource = (url: string): Promise<void> =>
    page.evaluate(
      ({ url, waitMs }) =>
        new Promise<void>((resolve, reject) => {
          const globals = globalThis as unknown as PageGlobals;
          globals.received = [];
          globals.source = new globals.EventSource(url);
          globals.source.addEventListener('user.created', (event) => {
            globals.received.push({ lastEventId: event.lastEventId, origin: event.origin, data: JSON.parse(event.data) as unknown });
          });
          globals.source.onopen = () => {
            // From now on an error is a dropped connection, which EventSource retries by itself.
            globals.source.onerror = null;
            resolve();
          };
          globals.source.onerror = () => reject(new Error(`EventSource could not open ${url}`));
          setTimeout(() => reject(new Error('EventSource did not open in time')), waitMs);
        }),
      { url, waitMs: browserWaitMs },
    );

  /** The events received so far, once there are `count` of them. */
  const receivedEvents = async (count: number): Promise<Received[]> => {
    await page.waitForFunction((count) => (globalThis as unknown as PageGlobals).received.length >= count, count, { timeout: browserWaitMs });
    return page.evaluate(() => (globalThis as unknown as PageGlobals).received as Received[]);
  };

  const closeSource = (): Promise<void> => page.evaluate(() => (globalThis as unknown as PageGlobals).source.close());

  /** fetch() from the page: creates a user on the service, as the page's own scripts would. */
  const createFromPage = (name: string): Promise<number> =>
    page.evaluate(
      async ({ url, name }) => (await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, email: `${name.toLowerCase()}@browser.example` }) })).status,
      { url: `${service.baseUrl}/api/users`, name },
    );

  test('an EventSource on another origin opens the stream and receives the event of a user created there with fetch()', async () => {
    await openSource(service.baseUrl + STREAM);
    try {
      assert.equal(await createFromPage('Ada'), 201);
      const [event] = await receivedEvents(1);
      const [ada] = await service.db.query<Array<{ id: number }>>("SELECT id FROM users WHERE name = 'Ada'");
      const row = (await numberedEvents(service.db)).find((event) => event.user_id === ada!.id);
      assert.equal(event!.origin, new URL(service.baseUrl).origin);
      assert.equal(event!.lastEventId, String(row!.id));
      assert.deepEqual(
        { id: event!.data.id, type: event!.data.type, user: event!.data.data.id, name: event!.data.data.name, email: event!.data.data.email },
        { id: row!.id, type: 'user.created', user: row!.user_id, name: 'Ada', email: 'ada@browser.example' },
      );
    } finally {
      await closeSource();
    }
    assert.deepEqual(watch.errors, []);
  });

  test('after its connection drops, EventSource reconnects with Last-Event-ID and receives what it missed, nothing twice', async () => {
    const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: portOf(service.baseUrl) });
    try {
      await openSource(`http://127.0.0.1:${proxy.port}${STREAM}`);
      assert.equal(await createFromPage('Before'), 201);
      await receivedEvents(1);
      await proxy.setMode('refuse');
      for (const name of ['Missed1', 'Missed2']) {
        assert.equal((await request(service.baseUrl, 'POST', '/api/users', { json: { name, email: `${name.toLowerCase()}@browser.example` } })).status, 201);
      }
      await proxy.setMode('forward');
      const events = await receivedEvents(3);
      assert.deepEqual(events.map((event) => event.data.data.name), ['Before', 'Missed1', 'Missed2']);
      const ids = events.map((event) => event.data.id);
      assert.deepEqual(ids, [ids[0]!, ids[0]! + 1, ids[0]! + 2]);
      assert.deepEqual(events.map((event) => event.lastEventId), ids.map(String));
    } finally {
      await closeSource();
      await proxy.close();
    }
  });
});
