import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkDurability } from '../../faults/checkers/durability.js';
import type { NodeState } from '../../faults/checkers/history.js';
import { created, op, v } from './ops.js';

const nodes = (...values: Array<string | null>): NodeState[] => values.map((name) => new Map(name === null ? [] : [[1, v(name)]]));

test('an acknowledged PUT on every node holds', () => {
  assert.deepEqual(checkDurability([created('a', 0, 1), op('put', 2, 3, { value: v('b') })], nodes('b', 'b', 'b')), []);
});

test('a lost acknowledged write is found on the node that lost it', () => {
  const found = checkDurability([created('a', 0, 1), op('put', 2, 3, { value: v('b') })], nodes('b', 'a', 'b'));
  assert.ok(found.some((anomaly) => /lost on node 2/.test(anomaly.message)));
  assert.ok(found.some((anomaly) => /node 2 ends with other users/.test(anomaly.message)));
});

test('a write overwritten by one that may have come later is not lost', () => {
  const unknownLater = op('put', 4, undefined, { value: v('c'), outcome: 'unknown' });
  assert.deepEqual(checkDurability([created('a', 0, 1), op('put', 2, 3, { value: v('b') }), unknownLater], nodes('c', 'c', 'c')), []);
});

test('an acknowledged create missing after a crash, with no delete, is lost', () => {
  assert.equal(checkDurability([created('a', 0, 1)], nodes(null, null, null)).length, 3);
});

test('a delete with an unknown outcome may explain a missing user', () => {
  assert.deepEqual(checkDurability([created('a', 0, 1), op('delete', 2, undefined, { outcome: 'unknown' })], nodes(null, null, null)), []);
});

test('a value no request wrote is an anomaly', () => {
  assert.ok(checkDurability([created('a', 0, 1)], nodes('zz', 'zz', 'zz')).some((anomaly) => /which no request wrote/.test(anomaly.message)));
});
