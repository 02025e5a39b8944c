import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { scrape, valueOf } from '../helpers/metrics.js';
import { dbEnv } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';

let db: TestDatabase;
let child: ServiceProcess;
let workerUrls: string[];

before(async () => {
  db = await createTestDatabase('metrics_cluster');
  child = new ServiceProcess({ ...dbEnv(db.config), ACCESS_PASSWORD: TEST_PASSWORD }, 'test/operations/fixtures/cluster-metrics.ts');
  const listening = await child.logEntry('workers listening', 60_000);
  workerUrls = (listening.ports as number[]).map((port) => `http://127.0.0.1:${port}`);
});
after(async () => {
  if (child) {
    child.signal('SIGTERM');
    const exit = await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    if (!exit) await child.stop();
  }
  await db?.drop();
});

describe('node:cluster: /metrics shows the whole service, every worker\'s figures summed', () => {
  test('two workers serving 3 and 5 reads: either worker\'s /metrics counts 8', async () => {
    assert.equal(workerUrls.length, 2);
    const [first, second] = workerUrls as [string, string];
    for (let i = 0; i < 3; i++) assert.equal((await request(first, 'GET', '/api/users/1')).status, 200);
    for (let i = 0; i < 5; i++) assert.equal((await request(second, 'GET', '/api/users/2')).status, 200);
    const reads = { method: 'GET', route: '/api/users/{id}', status: '200' };
    for (const url of workerUrls) {
      const families = await scrape(`${url}/metrics`);
      assert.equal(valueOf(families, 'http_requests_total', reads), 8, url);
      assert.equal(valueOf(families, 'db_operations_total', { kind: 'read', outcome: 'ok' }), 8, url);
    }
  });

  test('process figures add up over the workers; the event-loop lag is the highest of them', async () => {
    const [first] = workerUrls as [string];
    const families = await scrape(`${first}/metrics`);
    // Each worker alone holds well over 20 MB: the sum of two is above 40 MB.
    assert.ok(valueOf(families, 'process_resident_memory_bytes') > 40 * 1024 * 1024);
    assert.ok(valueOf(families, 'nodejs_eventloop_lag_seconds') < 10);
  });
});
