import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultTuning, type PoolTuning } from '../../src/db/pool-tuning.js';
import { createTestDatabase, testServer, throughPort } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { assertSucceeded, callBounded, everyOperation, type Operation } from './helpers/db-operations.js';
import { killSessions, serviceSessions } from './helpers/db-sessions.js';

/**
 * Concurrent listings and reads, so the pool holds several open connections afterwards (reads by
 * id alone would share one batched statement, and so one connection).
 */
async function warmPool(service: RunningService): Promise<void> {
  const list: Operation = { rule: 'list', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD}` };
  const read: Operation = { rule: 'read', method: 'GET', path: '/api/users/1' };
  const calls = Array.from({ length: 12 }, (_, i) => callBounded(service.baseUrl, i % 2 === 0 ? list : read));
  for (const res of await Promise.all(calls)) assert.equal(res.status, 200);
}

/** One of each operation, one after the other, each required to succeed at the first attempt. */
async function assertEveryOperationSucceeds(service: RunningService, marker: string, targetId: number): Promise<void> {
  const ops: Operation[] = everyOperation(marker, targetId);
  for (const op of ops) assertSucceeded(await callBounded(service.baseUrl, op), op);
  const created = await service.db.query<unknown[]>('SELECT id FROM users WHERE email = ?', [`${marker}@example.com`]);
  assert.equal(created.length, 1, 'the create was applied exactly once');
}

async function withService(label: string, tuning: PoolTuning, run: (service: RunningService) => Promise<void>): Promise<void> {
  const service = await startService(label, { poolTuning: tuning });
  try {
    await run(service);
  } finally {
    await service.close();
  }
}

describe('connections the database server drops', () => {
  test('KILL of every service connection: the next reads and writes all succeed, and no write is applied twice', async () => {
    await withService('killed', defaultTuning, async (service) => {
      for (const round of [1, 2, 3]) {
        await warmPool(service);
        const sessions = await serviceSessions(service.db);
        assert.ok(sessions.length >= 2, `round ${round}: the pool has connections open (${sessions.length})`);
        await killSessions(service.db, sessions);
        await assertEveryOperationSucceeds(service, `killed-${round}`, 1 + round);
      }
      // Many requests at once onto a pool of killed connections.
      await warmPool(service);
      await killSessions(service.db, await serviceSessions(service.db));
      const burst = Array.from({ length: 8 }, (_, i) => everyOperation(`killed-burst-${i}`, 1)).flatMap((ops) => ops.slice(0, 3));
      const answers = await Promise.all(burst.map((op) => callBounded(service.baseUrl, op)));
      answers.forEach((res, i) => assertSucceeded(res, burst[i]!));
    });
  });

  test('connections that died unnoticed (the service learns it only on use): reads are retried, writes go out only on a connection proven alive; all succeed, each create applied once', async () => {
    const db = await createTestDatabase('severed');
    const proxy = await startTcpProxy(testServer);
    // Every write pings first here: by default a connection that answered within the last second
    // is trusted, and these are cut silently right after use (a firewall would cut them after idling).
    const service = await startService('severed', {
      db: { ...db, config: throughPort(db.config, proxy.port) },
      poolTuning: { ...defaultTuning, trustAnsweredWithinMs: 0 },
    });
    try {
      for (const round of [1, 2]) {
        await warmPool(service);
        proxy.severSilently();
        await assertEveryOperationSucceeds(service, `severed-${round}`, 1 + round);
      }
      await warmPool(service);
      proxy.severSilently();
      const burst = Array.from({ length: 8 }, (_, i) => everyOperation(`severed-burst-${i}`, 1)).flatMap((ops) => ops.slice(0, 3));
      const answers = await Promise.all(burst.map((op) => callBounded(service.baseUrl, op)));
      answers.forEach((res, i) => assertSucceeded(res, burst[i]!));
      const created = await db.query<unknown[]>("SELECT id FROM users WHERE email LIKE 'severed-burst-%'");
      assert.equal(created.length, 8, 'each create of the burst applied exactly once');
    } finally {
      await service.close();
      await proxy.close();
      await db.drop();
    }
  });

  test('connections the server closes after its wait_timeout: the next reads and writes all succeed', async () => {
    // The service keeps idle connections far longer than the server tolerates them here.
    const tuning: PoolTuning = { ...defaultTuning, testing: { sessionWaitTimeoutSeconds: 1 }, idleTimeoutMs: 600_000 };
    await withService('waittimeout', tuning, async (service) => {
      for (const round of [1, 2]) {
        await warmPool(service);
        assert.ok((await serviceSessions(service.db)).length >= 2, 'the pool has connections open');
        await pollUntil('the server to drop the idle connections', async () =>
          (await serviceSessions(service.db)).length === 0 ? true : undefined,
        );
        await assertEveryOperationSucceeds(service, `waittimeout-${round}`, 1 + round);
      }
    });
  });

  test('idle connections are closed by the service itself, below the server wait_timeout, and requests still succeed', async () => {
    await withService('idlereap', { ...defaultTuning, idleTimeoutMs: 300 }, async (service) => {
      const [server] = await service.db.query<Array<{ waitTimeout: number }>>('SELECT @@GLOBAL.wait_timeout AS waitTimeout');
      assert.ok(defaultTuning.idleTimeoutMs < server!.waitTimeout * 1000, 'the default idle timeout is below the server wait_timeout');
      await warmPool(service);
      assert.ok((await serviceSessions(service.db)).length >= 2, 'the pool has connections open');
      // The server would keep them for hours (wait_timeout above): only the service can close them.
      await pollUntil('the service to close its idle connections', async () =>
        (await serviceSessions(service.db)).length === 0 ? true : undefined,
      );
      await assertEveryOperationSucceeds(service, 'idlereap', 2);
    });
  });
});
