import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService } from '../helpers/service.js';
import { lockUsersTable, sessionsWaitingForLock } from './helpers/db-sessions.js';

const BUDGET_MS = defaultTuning.operationTimeoutMs;

test('an operation waiting behind a stuck batch is answered within its own budget, counted from its arrival', async () => {
  // One batch of reads at a time, so the second read waits behind the first.
  const service = await startService('batchdeadline', {
    poolTuning: { ...defaultTuning, operationTimeoutMs: BUDGET_MS, batchesInFlight: 1 },
  });
  const lock = await lockUsersTable(service.db.config);
  try {
    const firstSent = performance.now();
    const first = request(service.baseUrl, 'GET', '/api/users/1');
    await pollUntil('the first read to wait on the lock', async () =>
      (await sessionsWaitingForLock(service.db)).length === 1 ? true : undefined,
    );
    const second = await request(service.baseUrl, 'GET', '/api/users/2');
    const sinceFirstSent = performance.now() - firstSent;
    assert.deepEqual([second.status, second.json], [500, { error: 'Database error' }], second.text);
    const firstAnswer = await first;
    assert.deepEqual([firstAnswer.status, firstAnswer.json], [500, { error: 'Database error' }], firstAnswer.text);
    // Had its budget started only when its batch did, that batch could not start before the first
    // one's budget was spent, and the answer could not come before two budgets after the first read
    // was sent, however fast the machine. Counted from its arrival, it comes about one budget after.
    assert.ok(
      sinceFirstSent < 2 * BUDGET_MS,
      `answered ${Math.round(sinceFirstSent)} ms after the first read was sent; budget ${BUDGET_MS} ms`,
    );
  } finally {
    await lock.release();
    await service.close();
  }
});
