import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultTuning } from '../../src/db/pool.js';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService } from '../helpers/service.js';
import { lockUsersTable, sessionsWaitingForLock } from './helpers/db-sessions.js';

const BUDGET_MS = 1500;

test('an operation waiting behind a stuck batch is answered within its own budget, counted from its arrival', async () => {
  // One batch of reads at a time, so the second read waits behind the first.
  const service = await startService('batchdeadline', {
    poolTuning: { ...defaultTuning, operationTimeoutMs: BUDGET_MS, batchesInFlight: 1 },
  });
  const lock = await lockUsersTable(service.db.config);
  try {
    const first = request(service.baseUrl, 'GET', '/api/users/1');
    await pollUntil('the first read to wait on the lock', async () =>
      (await sessionsWaitingForLock(service.db)).length === 1 ? true : undefined,
    );
    const sent = performance.now();
    const second = await request(service.baseUrl, 'GET', '/api/users/2');
    const waited = performance.now() - sent;
    assert.equal(second.status, 500, second.text);
    assert.equal((await first).status, 500);
    // Had its budget started only when its batch did, it would have waited about two budgets.
    assert.ok(waited < 1.5 * BUDGET_MS, `answered after ${Math.round(waited)} ms; budget ${BUDGET_MS} ms`);
  } finally {
    await lock.release();
    await service.close();
  }
});
