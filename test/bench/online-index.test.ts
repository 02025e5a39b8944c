import assert from 'node:assert/strict';
import { test } from 'node:test';
import { periodStats } from '../../bench/online-index.js';
import { parseOptions } from '../../bench/options.js';
import type { Answer } from '../../bench/steady-load.js';

const answer = (sentAtMs: number, ms: number, outcome = '200'): Answer => ({
  sentAtMs,
  ms,
  method: 'GET',
  path: `/api/users/${sentAtMs}`,
  outcome,
  ok: outcome === '200',
});

test('--mode finding and --mode online-index are modes, finding timing each request --tries times', () => {
  assert.equal(parseOptions(['--mode', 'online-index']).mode, 'online-index');
  const finding = parseOptions(['--mode', 'finding', '--tries', '9']);
  assert.equal(finding.mode, 'finding');
  assert.equal(finding.tries, 9);
});

test('a period holds the answers to requests sent within it, with their percentiles, slowest answer and failures by kind', () => {
  const outcomes: Record<number, string> = { 30: 'timeout', 60: '500' };
  const answers = [answer(50, 120), ...Array.from({ length: 100 }, (_, i) => answer(100 + i, i + 1, outcomes[i + 1]))];
  const during = periodStats('during the build', answers, 100, 400);
  assert.equal(during.answers, 100);
  assert.equal(during.seconds, 0.3);
  assert.equal(during.p50Ms, 50);
  assert.equal(during.p99Ms, 99);
  assert.equal(during.slowest?.ms, 100);
  assert.equal(during.failures, 2);
  assert.deepEqual(during.failureKinds, { timeout: 1, '500': 1 });
  assert.equal(periodStats('before', answers, 0, 100).slowest?.ms, 120, 'an answer counts where its request was sent, however long it took');
});
