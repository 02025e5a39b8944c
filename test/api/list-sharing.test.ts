import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Database } from '../../src/db/database.js';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { lockUsersTable, sessionsWaitingForLock } from '../robustness/helpers/db-sessions.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

const LIST = `/api/users?pwd=${TEST_PASSWORD}`;

/** How many list queries the database was sent while `run` ran (the service runs in this process). */
async function countListQueries<T>(run: () => Promise<T>): Promise<{ queries: number; result: T }> {
  const original = Database.prototype.stream;
  let queries = 0;
  Database.prototype.stream = function (this: Database, ...args: Parameters<Database['stream']>) {
    queries++;
    return original.apply(this, args);
  } as Database['stream'];
  try {
    return { result: await run(), queries };
  } finally {
    Database.prototype.stream = original;
  }
}

async function concurrentLists(service: RunningService, count: number): Promise<unknown[]> {
  const answers = await Promise.all(Array.from({ length: count }, () => request(service.baseUrl, 'GET', LIST)));
  for (const answer of answers) assert.equal(answer.status, 200, answer.text);
  return answers.map((answer) => answer.json);
}

describe('concurrent listings', () => {
  let small: RunningService;
  let tiny: RunningService;
  before(async () => {
    small = await startService('listshare');
    // A limit the ten seed users exceed: concurrent listings fall back to one stream each.
    tiny = await startService('listnoshare', { poolTuning: { ...defaultTuning, sharedListLimitBytes: 200 } });
  });
  after(async () => {
    await small.close();
    await tiny.close();
  });

  test('a small table: 40 concurrent listings share a few reads; every answer is the complete, current list', async () => {
    const created = await request(small.baseUrl, 'POST', '/api/users', { json: { name: 'Shared', email: 's@x' } });
    assert.equal(created.status, 201);
    const expected = (await small.db.users()).map((user) => user.id);
    let arrived = 0;
    const onRequest = (): void => void arrived++;
    small.app.http.server.on('request', onRequest);
    // The table is locked until all 40 have arrived: the first listings hold the batch places, the
    // rest gather behind them, so the sharing does not depend on timing.
    const lock = await lockUsersTable(small.db.config);
    const counted = countListQueries(() => concurrentLists(small, 40));
    try {
      await pollUntil('all 40 listings to arrive', () => (arrived >= 40 ? true : undefined));
    } finally {
      await lock.release();
      small.app.http.server.off('request', onRequest);
    }
    const { queries, result: lists } = await counted;
    for (const list of lists) assert.deepEqual((list as Array<{ id: number }>).map((user) => user.id), expected);
    assert.ok(queries <= defaultTuning.batchesInFlight + 1, `${queries} list queries for 40 listings`);
  });

  test('a table over the sharing limit: each of 40 concurrent listings streams its own read, all complete', async () => {
    const expected = (await tiny.db.users()).map((user) => user.id);
    const { queries, result: lists } = await countListQueries(() => concurrentLists(tiny, 40));
    for (const list of lists) assert.deepEqual((list as Array<{ id: number }>).map((user) => user.id), expected);
    assert.ok(queries >= 40, `${queries} list queries for 40 listings`);
  });

  test('clients that hang up in the middle of a long list do not hold back later listings', async () => {
    const bulk = Array.from({ length: 3000 }, (_, i) => [`Bulk ${i}`, `bulk${i}@x`]);
    await small.db.query('INSERT INTO users (name, email) VALUES ?', [bulk]);
    for (let i = 0; i < 2 * defaultTuning.batchesInFlight + 1; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${small.baseUrl}${LIST}`, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
        req.end();
      });
    }
    const lists = await concurrentLists(small, 5);
    for (const list of lists) assert.ok((list as unknown[]).length > 3000);
  });

  test('clients that hang up before their list started do not hold back later listings', async () => {
    const lock = await lockUsersTable(small.db.config);
    try {
      for (let i = 0; i < 2 * defaultTuning.batchesInFlight + 1; i++) {
        const gone = new AbortController();
        const listing = fetch(`${small.baseUrl}${LIST}`, { signal: gone.signal }).catch(() => undefined);
        await pollUntil('the listing to wait on the lock', async () =>
          (await sessionsWaitingForLock(small.db)).length > 0 ? true : undefined,
        );
        gone.abort();
        await listing;
        await pollUntil('its query to be dropped', async () =>
          (await sessionsWaitingForLock(small.db)).length === 0 ? true : undefined,
        );
      }
    } finally {
      await lock.release();
    }
    await concurrentLists(small, 5);
  });

  test('a listing sent after a write was acknowledged includes it, also when it joins others', async () => {
    const lists = concurrentLists(small, 20);
    const created = await request(small.baseUrl, 'POST', '/api/users', { json: { name: 'Just now', email: 'now@x' } });
    assert.equal(created.status, 201);
    const after = await concurrentLists(small, 20);
    await lists;
    for (const list of after) assert.ok((list as Array<{ name: string }>).some((user) => user.name === 'Just now'));
  });
});
