import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCausalReads } from '../../faults/checkers/causal.js';
import { created, op, v } from './ops.js';

const other = { instance: 1 };

test('a read through the other instance after an acknowledged PUT sees it', () => {
  assert.deepEqual(checkCausalReads([created('a', 0, 1), op('put', 2, 3, { value: v('b') }), op('read', 4, 5, { read: v('b'), ...other })]), []);
});

test('an older value through the other instance after an acknowledged PUT is a stale read', () => {
  assert.equal(checkCausalReads([created('a', 0, 1), op('put', 2, 3, { value: v('b') }), op('read', 4, 5, { read: v('a'), ...other })]).length, 1);
});

test('"no user" through the other instance right after an acknowledged create is a stale read', () => {
  assert.equal(checkCausalReads([created('a', 0, 1), op('read', 2, 3, { read: null, outcome: 'ok', ...other })]).length, 1);
});

test('a read overlapping the write may see the older value', () => {
  assert.deepEqual(checkCausalReads([created('a', 0, 1), op('put', 2, 6, { value: v('b') }), op('read', 4, 5, { read: v('a'), ...other })]), []);
});

test('a value from a write that may have come later is not stale', () => {
  const unknown = op('put', 2, undefined, { value: v('c'), outcome: 'unknown' });
  assert.deepEqual(checkCausalReads([created('a', 0, 1), unknown, op('put', 3, 4, { value: v('b') }), op('read', 5, 6, { read: v('c'), ...other })]), []);
});
