import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkEvents, type OutboxEvent } from '../../faults/checkers/events.js';
import { created, op, v } from './ops.js';

const event = (id: number, type: string, request_id: string | null): OutboxEvent => ({ id, type, user_id: 1, request_id });

const create = created('a', 0, 1);
const put = op('put', 2, 3, { value: v('b') });
const refused = op('cas-put', 4, 5, { outcome: 'failed', status: 412, etag: 'E', expected: v('x'), value: v('c') });
const outbox = [event(1, 'user.created', create.requestId), event(2, 'user.updated', put.requestId)];

test('one event per acknowledged change, none for a refused one, every reader in order', () => {
  assert.deepEqual(checkEvents([create, put, refused], [outbox, outbox, outbox], [outbox, outbox.slice(1)]), []);
});

test('an acknowledged change without its event', () => {
  assert.equal(checkEvents([create, put], [outbox.slice(0, 1)], []).length, 1);
});

test('two events for one request (one POST, two users)', () => {
  assert.equal(checkEvents([create, put], [[...outbox, event(3, 'user.created', create.requestId)]], []).length, 1);
});

test('an event for a change that definitely failed', () => {
  assert.equal(checkEvents([create, put, refused], [[...outbox, event(3, 'user.updated', refused.requestId)]], []).length, 1);
});

test('nodes whose outboxes differ', () => {
  assert.equal(checkEvents([create, put], [outbox, outbox.slice(0, 1)], []).filter((a) => /outbox differs/.test(a.message)).length, 1);
});

test('a reader that skipped an event or received two out of order', () => {
  const three = [...outbox, event(3, 'user.deleted', null)];
  assert.equal(checkEvents([create, put], [three], [[three[0]!, three[2]!]]).length, 1);
  assert.equal(checkEvents([create, put], [three], [[three[1]!, three[0]!]]).length, 1);
});
