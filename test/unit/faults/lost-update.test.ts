import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLostUpdates } from '../../faults/checkers/lost-update.js';
import { op, v } from './ops.js';

test('one of two conditional writes on one ETag succeeds: no lost update', () => {
  const history = [op('cas-put', 0, 2, { etag: 'E', expected: v('a'), value: v('b') }), op('cas-patch', 1, 3, { etag: 'E', expected: v('a'), value: v('c'), outcome: 'failed', status: 412 })];
  assert.deepEqual(checkLostUpdates(history), []);
});

test('two conditional writes on the same ETag both succeeding is a lost update', () => {
  const history = [op('cas-put', 0, 2, { etag: 'E', expected: v('a'), value: v('b') }), op('cas-patch', 1, 3, { etag: 'E', expected: v('a'), value: v('c') })];
  assert.equal(checkLostUpdates(history).length, 1);
});

test('the same ETag on two users is no conflict', () => {
  const history = [op('cas-put', 0, 2, { etag: 'E', userId: 1 }), op('cas-put', 1, 3, { etag: 'E', userId: 2 })];
  assert.deepEqual(checkLostUpdates(history), []);
});
