import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { createTestDatabase, testServer, type TestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * Two "servers" for one DB_HOST list: two proxies in front of the same MariaDB, so the test can take
 * the first away (connections refused, open ones reset) and bring it back, whatever the server is.
 */
let db: TestDatabase;
let first: TcpProxy;
let second: TcpProxy;
let service: RunningService;
before(async () => {
  db = await createTestDatabase('hostlist');
  first = await startTcpProxy(testServer);
  second = await startTcpProxy(testServer);
  const servers = [first, second].map((proxy) => ({ host: '127.0.0.1', port: proxy.port }));
  service = await startService('hostlist', {
    db: { ...db, config: { ...db.config, servers } },
    poolTuning: { ...defaultTuning, healthCheckIntervalMs: 200, nodeRetryMs: 200 },
    metrics: { onApiPort: true },
  });
});
after(async () => {
  await service.close();
  await first.close();
  await second.close();
  await db.drop();
});

/** Beyond its health check's one connection, the service keeps pool connections only to the server it uses. */
const inUse = (proxy: TcpProxy): boolean => proxy.openLinks > 1;

async function everyOperationSucceeds(marker: string): Promise<void> {
  const created = await request(service.baseUrl, 'POST', '/api/users', { json: { name: marker, email: `${marker}@example.com` } });
  assert.equal(created.status, 201, created.text);
  const updated = await request(service.baseUrl, 'PUT', '/api/users/1', { json: { name: marker, email: 'john@example.com' } });
  assert.equal(updated.status, 200, updated.text);
  const read = await request(service.baseUrl, 'GET', '/api/users/1');
  assert.equal((read.json as { name: string }).name, marker);
}

describe('DB_HOST listing two servers', () => {
  test('every statement goes to the first server while it is healthy', async () => {
    await everyOperationSucceeds('first-healthy');
    assert.ok(inUse(first), 'pool connections to the first server');
    assert.ok(!inUse(second), 'none to the second');
  });

  test('the metrics count pool connections over every listed server', async () => {
    const scrape = await request(service.baseUrl, 'GET', '/metrics');
    assert.equal(scrape.status, 200);
    assert.match(scrape.text, /^db_pool_connections_in_use \d+$/m);
    assert.match(scrape.text, /^db_pool_waiting \d+$/m);
  });

  test('when the first server goes away the second takes over: errors are JSON 500 only, /readyz stays 200', async () => {
    await first.setMode('refuse');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await request(service.baseUrl, 'GET', '/api/users/1');
      if (res.status !== 200) assert.deepEqual([res.status, res.json], [500, { error: 'Database error' }]);
      statuses.push(res.status);
    }
    await everyOperationSucceeds('second-took-over');
    assert.ok(inUse(second), 'pool connections to the second server');
    assert.equal((await request(service.baseUrl, 'GET', '/readyz')).status, 200);
    assert.ok(statuses.slice(-5).every((status) => status === 200), `answers after the switch: ${statuses.join(' ')}`);
  });

  test('when the first server is back and passes its health check, statements go to it again', async () => {
    await first.setMode('forward');
    await pollUntil('the service to use the first server again', async () => {
      await everyOperationSucceeds(`back-${Date.now()}`);
      return inUse(first) ? true : undefined;
    });
  });

  test('with no server reachable /readyz says 503, and it recovers with either', async () => {
    await first.setMode('refuse');
    await second.setMode('refuse');
    const notReady = await pollUntil('/readyz 503', async () => {
      const res = await request(service.baseUrl, 'GET', '/readyz');
      return res.status === 503 ? res : undefined;
    });
    assert.deepEqual(notReady.json, { error: 'Database unavailable' });
    await second.setMode('forward');
    await pollUntil('/readyz 200', async () => ((await request(service.baseUrl, 'GET', '/readyz')).status === 200 ? true : undefined));
    await everyOperationSucceeds('second-alone');
  });
});
