import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CatchUpReads } from '../../src/events/stream/catch-up-reads.js';
import { EventWindow } from '../../src/events/stream/event-window.js';
import { reconnectMs } from '../../src/events/stream/sse.js';

/** A window after id 10 holding the texts of ids 11.. as "<id>;". */
function windowOf(count: number, maxEvents = 100, maxChars = 10_000): EventWindow {
  const window = new EventWindow(maxEvents, maxChars);
  window.reset(10);
  for (let id = 11; id <= 10 + count; id++) window.push(`${id};`, 'user.updated');
  return window;
}

test('the window covers every cursor from just before its oldest event on, and gives the events after one as a run', () => {
  const window = windowOf(5);
  assert.equal(window.lastId, 15);
  assert.deepEqual([window.covers(9), window.covers(10), window.covers(15), window.covers(99)], [false, true, true, true]);
  assert.deepEqual(window.after(12, 1000), { after: 12, through: 15, text: '13;14;15;' });
  assert.deepEqual(window.after(10, 1000), { after: 10, through: 15, text: '11;12;13;14;15;' });
  assert.equal(window.after(15, 1000), undefined, 'nothing after the last');
});

test('a run holds as many whole events as fit in the characters asked for, and always at least one', () => {
  const window = windowOf(5);
  assert.deepEqual(window.after(10, 7), { after: 10, through: 12, text: '11;12;' });
  assert.deepEqual(window.after(10, 1), { after: 10, through: 11, text: '11;' });
});

test('the oldest events go first once the window holds more than its events or characters', () => {
  const byCount = windowOf(8, 5);
  assert.deepEqual([byCount.size, byCount.covers(12), byCount.covers(13)], [5, false, true]);
  assert.deepEqual(byCount.after(13, 1000), { after: 13, through: 18, text: '14;15;16;17;18;' });
  const byChars = windowOf(8, 100, 9);
  assert.deepEqual([byChars.size, byChars.lastId, byChars.after(15, 1000)?.text], [3, 18, '16;17;18;']);
});

test('thousands of pushes past the bound keep the last events in order (dropped ones are compacted away)', () => {
  const window = windowOf(5000, 10);
  assert.equal(window.size, 10);
  assert.deepEqual(window.after(5000, 1000), { after: 5000, through: 5010, text: Array.from({ length: 10 }, (_, i) => `${5001 + i};`).join('') });
});

test('a reset empties the window, which then follows on from the id given', () => {
  const window = windowOf(5);
  window.reset(40);
  assert.deepEqual([window.size, window.lastId, window.covers(39), window.covers(40)], [0, 40, false, true]);
  window.push('41;', 'user.updated');
  assert.deepEqual(window.after(40, 100), { after: 40, through: 41, text: '41;' });
});

test('catch-up reads run at most the bound at once, the others waiting in order', async () => {
  const reads = new CatchUpReads(2);
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const read = (n: number) =>
    reads.run(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      order.push(n);
      if (n === 3) throw new Error('a failed read frees its turn');
      return n;
    });
  const results = await Promise.allSettled([1, 2, 3, 4, 5, 6].map(read));
  assert.equal(most, 2);
  assert.deepEqual(order, [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  assert.equal(reads.queued, 0);
});

test('a stream that must end is told to come back after a second at least, spread wider the more streams end together', () => {
  const few = Array.from({ length: 200 }, () => reconnectMs(1));
  const many = Array.from({ length: 200 }, () => reconnectMs(10_000));
  assert.ok(few.every((ms) => ms >= 1000 && ms < 4000));
  assert.ok(many.every((ms) => ms >= 1000 && ms < 21_000));
  assert.ok(Math.max(...many) - Math.min(...many) > Math.max(...few) - Math.min(...few));
});
