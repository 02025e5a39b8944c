import assert from 'node:assert/strict';
import { test } from 'node:test';
import { medianRun, type Measurement } from '../../bench/measurement.js';

const run = (reqPerSec: number, errorKinds: Record<string, number> = {}): Measurement => ({
  reqPerSec,
  p50Ms: 1000 / reqPerSec,
  p99Ms: 4000 / reqPerSec,
  ok: reqPerSec * 5,
  errors: Object.values(errorKinds).reduce((sum, count) => sum + count, 0),
  errorKinds,
  seconds: 5,
  cpuUsPerOp: reqPerSec / 100,
});

test('the median run by throughput stands for a side, its latencies and CPU with it', () => {
  const median = medianRun([run(300), run(100), run(200)]);
  assert.equal(median.reqPerSec, 200);
  assert.equal(median.p50Ms, 5);
  assert.equal(median.cpuUsPerOp, 2);
});

test('errors of every run are reported, not only those of the median one', () => {
  const median = medianRun([run(300, { '500': 2 }), run(100, { timeout: 1 }), run(200)]);
  assert.equal(median.errors, 3);
  assert.deepEqual(median.errorKinds, { '500': 2, timeout: 1 });
});
