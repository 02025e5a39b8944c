import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTime, withMilliseconds } from '../../src/events/event-json.js';

test('a stored time keeps three fraction digits, also when the server sent none (a zero fraction)', () => {
  assert.equal(withMilliseconds('2026-11-26 04:46:41'), '2026-11-26 04:46:41.000');
  assert.equal(withMilliseconds('2026-11-26 04:46:41.5'), '2026-11-26 04:46:41.500');
  assert.equal(withMilliseconds('2026-11-26 04:46:41.123456'), '2026-11-26 04:46:41.123');
});

test('an event time is ISO 8601 in UTC with milliseconds, also for a zero fraction', () => {
  assert.equal(isoTime('2026-11-26 04:46:41'), '2026-11-26T04:46:41.000Z');
  assert.equal(isoTime('2026-11-26 04:46:41.123456'), '2026-11-26T04:46:41.123Z');
});
