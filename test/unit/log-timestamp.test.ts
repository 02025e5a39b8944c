import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isoTimestamps } from '../../src/log/timestamp.js';

describe('isoTimestamps: the same text as Date.prototype.toISOString', () => {
  test('every millisecond across second, minute, day and year boundaries reads as toISOString writes it', () => {
    let now = 0;
    const timestamp = isoTimestamps(() => now);
    const starts = [Date.UTC(2026, 11, 5, 23, 59, 58, 990), Date.UTC(2026, 11, 31, 23, 59, 59, 500), Date.UTC(2024, 1, 28, 23, 59, 59, 0), 0];
    for (const start of starts) {
      for (now = start; now < start + 2500; now += 7) assert.equal(timestamp(), new Date(now).toISOString());
    }
  });

  test('a clock that goes back (an NTP step) still reads true', () => {
    let now = Date.UTC(2026, 11, 5, 12, 0, 1, 5);
    const timestamp = isoTimestamps(() => now);
    assert.equal(timestamp(), '2026-12-05T12:00:01.005Z');
    now -= 1500;
    assert.equal(timestamp(), '2026-12-05T11:59:59.505Z');
  });

  test('years past 9999, which toISOString writes with six digits and a sign, read true too', () => {
    const now = Date.UTC(10_000, 0, 1, 0, 0, 0, 42);
    assert.equal(isoTimestamps(() => now)(), new Date(now).toISOString());
  });

  test('two readings in one millisecond are one string', () => {
    const timestamp = isoTimestamps(() => 1_796_500_000_123);
    assert.equal(timestamp(), '2026-12-05T19:46:40.123Z');
    assert.equal(timestamp(), '2026-12-05T19:46:40.123Z');
  });
});
