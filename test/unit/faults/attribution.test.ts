import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkRun } from '../../faults/checkers/all.js';
import { attributeUnknownCreates } from '../../faults/checkers/attribution.js';
import { created, op, v } from './ops.js';

const unknownCreate = () => created('u1', 0, 9, { userId: undefined, outcome: 'unknown', status: 500 });

test('a create answered 500 whose user is stored is given that user', () => {
  const [create] = attributeUnknownCreates([unknownCreate()], [[{ id: 5, ...v('u1') }]]);
  assert.equal(create!.userId, 5);
});

test('a create found on two users stays unattributed', () => {
  const [create] = attributeUnknownCreates([unknownCreate()], [[{ id: 5, ...v('u1') }, { id: 6, ...v('u1') }]]);
  assert.equal(create!.userId, undefined);
});

test('a user of a create answered 500, seen in list pages and stored, is no anomaly', () => {
  const page = op('list', 10, 11, { userId: undefined, page: [{ id: 5, ...v('u1') }] });
  const verdict = checkRun({ history: [unknownCreate(), page], nodes: [[{ id: 5, ...v('u1') }]], outboxes: [], readers: [] });
  assert.deepEqual(verdict.anomalies, []);
});

test('the same create stored twice is still reported, once per node', () => {
  const users = [{ id: 5, ...v('u1') }, { id: 6, ...v('u1') }];
  const verdict = checkRun({ history: [unknownCreate()], nodes: [users, users], outboxes: [], readers: [] });
  assert.deepEqual(verdict.anomalies.map((anomaly) => anomaly.checker), ['exactly-once', 'exactly-once']);
});
