import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventType } from '../../src/events/event-log.js';
import { EventWindow } from '../../src/events/stream/event-window.js';
import { TypeFilter } from '../../src/events/stream/type-filter.js';

/** A window after id 10 holding ids 11.. as "<id><c|u|d>;", their types in turn created, updated, deleted. */
function windowOf(count: number): EventWindow {
  const types: EventType[] = ['user.created', 'user.updated', 'user.deleted'];
  const window = new EventWindow(100, 10_000);
  window.reset(10);
  for (let id = 11; id <= 10 + count; id++) {
    const type = types[(id - 11) % 3]!;
    window.push(`${id}${type[5]};`, type);
  }
  return window;
}

const only = (value: string): TypeFilter => TypeFilter.parse(value)!;

test('types= parses to one shared filter per set of types, whatever the order or repeats; all three is no filter', () => {
  assert.equal(only('user.deleted,user.created'), only('user.created,user.deleted,user.created'));
  assert.equal(only('user.deleted,user.created').key, 'user.created,user.deleted');
  assert.equal(TypeFilter.parse('user.deleted,user.updated,user.created'), undefined);
  for (const bad of ['', ',', 'user.created,', 'user.removed', 'User.created', ' user.created']) {
    assert.throws(() => TypeFilter.parse(bad), { status: 400 }, JSON.stringify(bad));
  }
});

test('a filtered run holds the events of its types only, and an `id:` alone when the last looked at is of another', () => {
  const window = windowOf(6);
  assert.deepEqual(window.afterOf(10, 1000, only('user.updated')), { after: 10, through: 16, text: '12u;15u;id: 16\n\n' });
  assert.deepEqual(window.afterOf(10, 1000, only('user.created,user.deleted')), { after: 10, through: 16, text: '11c;13d;14c;16d;' });
  assert.deepEqual(window.afterOf(15, 1000, only('user.created')), { after: 15, through: 16, text: 'id: 16\n\n' }, 'none of its types: the id alone');
  assert.equal(window.afterOf(16, 1000, only('user.created')), undefined, 'nothing after the last');
});

test('a full filtered run ends with its last event sent, at least one in it; the next goes on from there', () => {
  const window = windowOf(6);
  assert.deepEqual(window.afterOf(10, 8, only('user.created,user.deleted')), { after: 10, through: 13, text: '11c;13d;' });
  assert.deepEqual(window.afterOf(13, 8, only('user.created,user.deleted')), { after: 13, through: 16, text: '14c;16d;' });
  assert.deepEqual(window.afterOf(10, 1, only('user.updated')), { after: 10, through: 12, text: '12u;' });
});

test('streams of the same types at the same cursor share one run until the window changes', () => {
  const window = windowOf(3);
  const filter = only('user.deleted');
  const first = window.afterOf(10, 1000, filter);
  assert.equal(window.afterOf(10, 1000, filter), first, 'the same run, built once');
  window.push('14c;', 'user.created');
  const next = window.afterOf(10, 1000, filter);
  assert.notEqual(next, first);
  assert.deepEqual(next, { after: 10, through: 14, text: '13d;id: 14\n\n' });
});
