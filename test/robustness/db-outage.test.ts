import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, testServer, throughPort, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';
import { startTcpProxy, type ProxyMode, type TcpProxy } from '../helpers/tcp-proxy.js';
import {
  assertStorageFailure,
  assertSucceeded,
  callBounded,
  everyOperation,
  type Operation,
} from './helpers/db-operations.js';

let db: TestDatabase;
let proxy: TcpProxy;
let service: RunningService;
before(async () => {
  db = await createTestDatabase('outage');
  proxy = await startTcpProxy(testServer);
  // The service reaches the database only through the proxy; the test's own connection goes direct.
  service = await startService('outage', { db: { ...db, config: throughPort(db.config, proxy.port) } });
});
after(async () => {
  await service.close();
  await proxy.close();
  await db.drop();
});

/** Several of each operation at once: more requests than the pool has connections. */
function burst(marker: string, targetIds: number[]): Operation[] {
  return targetIds.flatMap((id, i) => everyOperation(`${marker}-${i}`, id));
}

async function insertUsers(count: number, marker: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const result = await db.query<{ insertId: number }>('INSERT INTO users (name, email) VALUES (?, ?)', [
      `Target ${marker} ${i}`,
      `target-${marker}-${i}@example.com`,
    ]);
    ids.push(result.insertId);
  }
  return ids;
}

const outages: Array<{ mode: ProxyMode; how: string }> = [
  { mode: 'refuse', how: 'connections reset and refused' },
  { mode: 'blackhole', how: 'connections stay open, every byte dropped' },
];

describe('the database goes away while the service runs', () => {
  for (const { mode, how } of outages) {
    test(`(${how}) every request -> 500 JSON within the bound, none hangs; after the restore all succeed again; writes answered 500 left no trace`, async () => {
      const targets = await insertUsers(4, mode);
      const before = await db.users();
      // Warm the pool so that the outage catches open, idle connections as well as new ones.
      for (const res of await Promise.all(burst(`${mode}-warm`, targets).filter((op) => op.method === 'GET').map((op) => callBounded(service.baseUrl, op)))) {
        assert.equal(res.status, 200);
      }

      await proxy.setMode(mode);
      const duringOutage = [...burst(`${mode}-down`, targets), ...burst(`${mode}-down-more`, targets)];
      const [readiness, ...answers] = await Promise.all([
        callBounded(service.baseUrl, { rule: 'readyz', method: 'GET', path: '/readyz' }),
        ...duringOutage.map((op) => callBounded(service.baseUrl, op)),
      ]);
      assert.deepEqual([readiness!.status, readiness!.json], [503, { error: 'Database unavailable' }], '/readyz reports the database unavailable');
      answers.forEach((res, i) => assertStorageFailure(res, duringOutage[i]!.rule));

      await proxy.setMode('forward');
      await pollUntil('a read to succeed after the restore', async () => {
        const res = await callBounded(service.baseUrl, everyOperation('probe', 1)[1]!);
        return res.status === 200 ? res : undefined;
      }, { timeoutMs: 10_000 });
      assert.deepEqual(await db.users(), before, 'nothing answered 500 during the outage changed the table');

      const afterRestore = burst(`${mode}-up`, targets);
      const results = await Promise.all(afterRestore.map((op) => callBounded(service.baseUrl, op)));
      results.forEach((res, i) => {
        const op = afterRestore[i]!;
        // The burst races its own update and delete of each target; whichever runs second may find no row.
        if (res.status === 404 && (op.method === 'PUT' || op.method === 'DELETE')) {
          assert.deepEqual(res.json, { error: 'User not found' }, `${op.rule}: ${res.text}`);
          return;
        }
        assertSucceeded(res, op);
      });
      const createdNow = await db.query<unknown[]>("SELECT id FROM users WHERE email LIKE ?", [`${mode}-up-%`]);
      assert.equal(createdNow.length, targets.length, 'every create after the restore stored exactly one row');
    });
  }
});
