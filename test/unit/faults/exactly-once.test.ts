import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkExactlyOnce } from '../../faults/checkers/exactly-once.js';
import { created, v } from './ops.js';

const user = (id: number, name: string) => ({ id, ...v(name) });

test('one acknowledged create, one user', () => {
  assert.deepEqual(checkExactlyOnce([created('m1', 0, 1, { userId: 7 })], [[user(7, 'm1')]]), []);
});

test('one POST, two users: the duplicated create', () => {
  const found = checkExactlyOnce([created('m1', 0, 1, { userId: 7 })], [[user(7, 'm1'), user(10, 'm1')]]);
  assert.equal(found.length, 1);
  assert.match(found[0]!.message, /stored more than once.*7, 10/);
});

test('a create with an unknown outcome may leave one user, not two', () => {
  const unknown = created('m2', 0, undefined, { userId: undefined, outcome: 'unknown' });
  assert.deepEqual(checkExactlyOnce([unknown], [[user(4, 'm2')]]), []);
  assert.equal(checkExactlyOnce([unknown], [[user(4, 'm2'), user(5, 'm2')]]).length, 1);
});

test('an acknowledged user renamed since is still the one user of its create', () => {
  assert.deepEqual(checkExactlyOnce([created('m3', 0, 1, { userId: 7 })], [[user(7, 'renamed')]]), []);
});
