import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLinearizability } from '../../faults/checkers/linearizability.js';
import { created, op, v } from './ops.js';

const verdict = (history: Parameters<typeof checkLinearizability>[0]): number => checkLinearizability(history).anomalies.length;

test('a create, a PUT and a read of the PUT in sequence are linearizable', () => {
  assert.equal(verdict([created('a', 0, 1), op('put', 2, 3, { value: v('b') }), op('read', 4, 5, { read: v('b') })]), 0);
});

test('a read overlapping a PUT may see the old or the new value', () => {
  const put = op('put', 2, 10, { value: v('b') });
  assert.equal(verdict([created('a', 0, 1), put, op('read', 3, 4, { read: v('b') }), op('read', 5, 6, { read: v('b') })]), 0);
  assert.equal(verdict([created('a', 0, 1), put, op('read', 3, 4, { read: v('a') }), op('read', 5, 6, { read: v('b') })]), 0);
});

test('stale read after an acknowledged write is not linearizable', () => {
  assert.equal(verdict([created('a', 0, 1), op('put', 2, 3, { value: v('b') }), op('read', 4, 5, { read: v('a') })]), 1);
});

test('a value going back and forth between two overlapping reads is not linearizable', () => {
  const put = op('put', 2, 20, { value: v('b') });
  assert.equal(verdict([created('a', 0, 1), put, op('read', 3, 4, { read: v('b') }), op('read', 5, 6, { read: v('a') })]), 1);
});

test('a PUT with an unknown outcome may have happened, or not', () => {
  const unknown = op('put', 2, undefined, { value: v('b'), outcome: 'unknown', status: 500 });
  assert.equal(verdict([created('a', 0, 1), unknown, op('read', 4, 5, { read: v('b') })]), 0);
  assert.equal(verdict([created('a', 0, 1), unknown, op('read', 4, 5, { read: v('a') })]), 0);
});

test('an unknown PUT cannot take effect before it was sent', () => {
  const unknown = op('put', 6, undefined, { value: v('b'), outcome: 'unknown' });
  assert.equal(verdict([created('a', 0, 1), op('read', 2, 3, { read: v('b') }), unknown]), 1);
});

test('two compare-and-set writes on one ETag: the second is 412', () => {
  const first = op('cas-put', 2, 3, { expected: v('a'), value: v('b'), etag: 'E' });
  assert.equal(verdict([created('a', 0, 1), first, op('cas-put', 4, 5, { expected: v('a'), value: v('c'), etag: 'E', outcome: 'failed', status: 412 })]), 0);
  assert.equal(verdict([created('a', 0, 1), first, op('cas-put', 4, 5, { expected: v('a'), value: v('c'), etag: 'E' })]), 1);
});

test('a delete leaves 404s and no further value', () => {
  const history = [created('a', 0, 1), op('delete', 2, 3), op('read', 4, 5, { read: null, outcome: 'failed', status: 404 })];
  assert.equal(verdict(history), 0);
  assert.equal(verdict([...history.slice(0, 2), op('read', 4, 5, { read: v('a') })]), 1);
  assert.equal(verdict([...history.slice(0, 2), op('put', 4, 5, { value: v('b') })]), 1);
});

test('a list page shows a user as it was at some point of the page read', () => {
  const page = (name: string, sent: number, answered: number) => op('list', sent, answered, { page: [{ id: 1, ...v(name) }] });
  assert.equal(verdict([created('a', 0, 1), op('put', 2, 3, { value: v('b') }), page('b', 4, 5)]), 0);
  assert.equal(verdict([created('a', 0, 1), op('put', 2, 3, { value: v('b') }), page('a', 4, 5)]), 1);
});

test('a search that exceeds its budget is undecided, not an anomaly', () => {
  const overlapping = Array.from({ length: 14 }, (_, i) => op('put', 2, undefined, { value: v(`p${i}`), outcome: 'unknown' }));
  const result = checkLinearizability([created('a', 0, 1), ...overlapping, op('read', 100, 101, { read: v('nobody') })], { budget: 50 });
  assert.deepEqual(result, { anomalies: [], undecided: [1] });
});
