import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultTuning, type PoolTuning } from '../../src/db/pool-tuning.js';
import type { ApiResponse } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { callBounded, type Operation } from './helpers/db-operations.js';
import { lockUsersTable, serviceSessions, sessionsWaitingForLock } from './helpers/db-sessions.js';

const CONNECTIONS = 2;

/**
 * A budget far above how long the test holds the table, so only the pool and its queue decide;
 * one batch of reads in flight per connection, so the reads that find both busy wait in the queue.
 */
const tuning = (queueLimit: number): PoolTuning => ({
  ...defaultTuning,
  connectionLimit: CONNECTIONS,
  queueLimit,
  operationTimeoutMs: 20_000,
  batchesInFlight: CONNECTIONS,
});

const read = (id: number): Operation => ({ rule: 'read', method: 'GET', path: `/api/users/${id}` });

async function withService(label: string, queueLimit: number, run: (service: RunningService) => Promise<void>): Promise<void> {
  const service = await startService(label, { poolTuning: tuning(queueLimit) });
  try {
    await run(service);
  } finally {
    await service.close();
  }
}

/** Sends the request without waiting; `settled` lists the answers as they come in. */
function sendAll(service: RunningService, ops: Operation[], settled: ApiResponse[]): Array<Promise<ApiResponse>> {
  return ops.map((op) => fetchAndRecord(service.baseUrl, op, settled));
}

async function fetchAndRecord(baseUrl: string, op: Operation, settled: ApiResponse[]): Promise<ApiResponse> {
  // Generous: these wait behind a table lock the test holds on purpose.
  const response = await fetch(baseUrl + op.path, { method: op.method, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  const res: ApiResponse = { status: response.status, headers: response.headers, text, json: JSON.parse(text) as unknown };
  settled.push(res);
  return res;
}

describe('more requests than database connections', () => {
  test(`far more concurrent requests than the ${CONNECTIONS} pool connections are queued, not failed`, async () => {
    await withService('poolqueue', 1000, async (service) => {
      const lock = await lockUsersTable(service.db.config);
      let results: ApiResponse[];
      try {
        const settled: ApiResponse[] = [];
        const pending = sendAll(service, Array.from({ length: 120 }, (_, i) => read((i % 10) + 1)), settled);
        await pollUntil('both pool connections to wait on the lock', async () =>
          (await sessionsWaitingForLock(service.db)).length === CONNECTIONS ? true : undefined,
        );
        assert.equal((await serviceSessions(service.db)).length, CONNECTIONS, 'the pool opened no more than its limit');
        assert.equal(settled.length, 0, 'no request was turned away while all waited');
        await lock.release();
        results = await Promise.all(pending);
      } finally {
        await lock.release();
      }
      assert.deepEqual(
        results.map((res) => res.status),
        results.map(() => 200),
      );
      const list = await callBounded(service.baseUrl, { rule: 'list', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD}` });
      assert.equal(list.status, 200);
    });
  });

  test('beyond the bounded wait queue -> 503 JSON with Retry-After at once; the queued requests still complete', async () => {
    const queueLimit = 5;
    const extra = 20;
    await withService('poolfull', queueLimit, async (service) => {
      const lock = await lockUsersTable(service.db.config);
      let results: ApiResponse[];
      try {
        const settled: ApiResponse[] = [];
        // One at a time: reads arriving together would share one batch, and so one connection.
        const holding: Array<Promise<ApiResponse>> = [];
        for (let held = 1; held <= CONNECTIONS; held++) {
          holding.push(...sendAll(service, [read(held)], settled));
          await pollUntil(`${held} pool connection(s) to wait on the lock`, async () =>
            (await sessionsWaitingForLock(service.db)).length === held ? true : undefined,
          );
        }
        const more = sendAll(service, Array.from({ length: queueLimit + extra }, (_, i) => read((i % 10) + 1)), settled);
        // The turned-away answers come back while the table is still locked: they did not wait.
        await pollUntil(`${extra} requests to be turned away`, () => (settled.length >= extra ? true : undefined));
        for (const res of settled) {
          assert.equal(res.status, 503, res.text);
          assert.equal(res.headers.get('retry-after'), '1');
          assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
          assert.deepEqual(res.json, { error: 'Service busy, retry shortly' });
        }
        await lock.release();
        results = await Promise.all([...holding, ...more]);
      } finally {
        await lock.release();
      }
      const served = results.filter((res) => res.status === 200).length;
      const refused = results.filter((res) => res.status === 503).length;
      assert.deepEqual({ served, refused }, { served: CONNECTIONS + queueLimit, refused: extra });
      const after = await callBounded(service.baseUrl, read(3));
      assert.equal(after.status, 200, 'the service serves normally once the queue drained');
    });
  });
});
