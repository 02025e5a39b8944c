import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectionsPerInstance } from '../../src/startup/connection-budget.js';
import { RestartBackoff } from '../../src/supervisor/restart-backoff.js';

test('a worker that keeps dying young is replaced after a pause that doubles, up to the maximum', () => {
  const backoff = new RestartBackoff(100, 1000, 10_000);
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => backoff.next(50)), [100, 200, 400, 800, 1000, 1000]);
});

test('a worker that ran long enough before dying resets the pause to the first one', () => {
  const backoff = new RestartBackoff(100, 1000, 10_000);
  backoff.next(50);
  backoff.next(50);
  assert.equal(backoff.next(10_000), 100);
  assert.equal(backoff.next(50), 200);
});

test('connections one instance may open per server: every worker\'s pool, plus a health check per worker with several servers', () => {
  assert.equal(connectionsPerInstance(1, 10, 1), 10);
  assert.equal(connectionsPerInstance(4, 10, 1), 40);
  assert.equal(connectionsPerInstance(2, 8, 3), 18);
});
