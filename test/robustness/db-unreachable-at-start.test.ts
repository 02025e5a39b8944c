import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/log/logger.js';
import { createTestDatabase, testServer, throughPort } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { startTcpProxy, type ProxyMode } from '../helpers/tcp-proxy.js';
import { assertStorageFailure, assertSucceeded, callBounded, everyOperation } from './helpers/db-operations.js';

const unreachable: Array<{ mode: ProxyMode; how: string }> = [
  { mode: 'refuse', how: 'connections refused' },
  { mode: 'blackhole', how: 'connections accepted, every byte dropped' },
];

describe('the database unreachable when the service starts', () => {
  for (const { mode, how } of unreachable) {
    test(`(${how}) the service starts anyway: /healthz 200, /readyz 503, API calls 503 until its first attempt to reach the database fails, then 500 JSON within the bound (the contract's storage failure: the database does not answer, so no migration is under way); once the database appears everything works without a restart`, async () => {
      const db = await createTestDatabase(`start_${mode}`);
      const proxy = await startTcpProxy(testServer, mode);
      const logs: string[] = [];
      const app = createApp({
        db: throughPort(db.config, proxy.port),
        accessPassword: TEST_PASSWORD,
        logger: createLogger((line) => logs.push(line)),
        testing: { schemaRetryMs: 200, schemaRetryMaxMs: 1000 },
      });
      try {
        const { port } = await app.listen(0, '127.0.0.1');
        const baseUrl = `http://127.0.0.1:${port}`;
        let schemaSettled = false;
        const schema = app.prepareSchema().then(() => (schemaSettled = true));

        assert.equal((await request(baseUrl, 'GET', '/healthz')).status, 200, 'the process answers');
        const notReady = await request(baseUrl, 'GET', '/readyz');
        assert.deepEqual([notReady.status, notReady.json], [503, { error: 'Database unavailable' }]);

        // Until its first attempt to reach the database ends, the start refuses with 503 (Service starting); then a database that does not answer is a storage failure.
        await pollUntil('the first attempt to reach the database to fail', () => (logs.some((line) => line.includes('database not reachable, retrying')) ? true : undefined), { timeoutMs: 15_000 });
        const whileDown = everyOperation(`start-${mode}`, 2);
        const answers = await Promise.all(whileDown.map((op) => callBounded(baseUrl, op)));
        answers.forEach((res, i) => assertStorageFailure(res, whileDown[i]!.rule));
        assert.equal(schemaSettled, false, 'the schema cannot be in place yet');

        await proxy.setMode('forward');
        await pollUntil('/readyz to answer 200 after the database appeared', async () => {
          const res = await request(baseUrl, 'GET', '/readyz');
          return res.status === 200 ? res : undefined;
        });
        await schema;

        const list = await callBounded(baseUrl, everyOperation('unused', 2)[0]!);
        assert.equal(list.status, 200);
        assert.equal((list.json as unknown[]).length, 10, 'the ten seed users, created on the late start');
        for (const op of everyOperation(`start-${mode}-after`, 2)) assertSucceeded(await callBounded(baseUrl, op), op);
        const leftovers = await db.query('SELECT id FROM users WHERE email = ?', [`start-${mode}@example.com`]);
        assert.deepEqual(leftovers, [], 'the create answered 500 while the database was away left no row');
      } finally {
        await app.close(2000);
        await proxy.close();
        await db.drop();
      }
    });
  }
});
