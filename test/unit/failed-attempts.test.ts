import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FailedAttempts, MAX_TRACKED_ADDRESSES } from '../../src/limits/failed-attempts.js';

const limits = { maxFailures: 10, windowSeconds: 60 };

describe('FailedAttempts: 10 wrong passwords within 60 s block an address for one window', () => {
  test('nine failures do not block; the tenth blocks for the whole window', () => {
    const attempts = new FailedAttempts(limits);
    for (let i = 0; i < 9; i++) attempts.recordFailure('a', 1000 + i);
    assert.equal(attempts.blockedForMs('a', 1009), 0);
    attempts.recordFailure('a', 1009);
    assert.equal(attempts.blockedForMs('a', 1009), 60_000);
    assert.equal(attempts.blockedForMs('a', 31_009), 30_000);
    assert.equal(attempts.blockedForMs('a', 61_009), 0, 'free again once the window has passed');
  });

  test('the failure that blocks tells onBlocked, once: not the nine before it', () => {
    const told: string[] = [];
    const attempts = new FailedAttempts(limits, (address) => told.push(address));
    for (let i = 0; i < 9; i++) attempts.recordFailure('a', 1000 + i);
    assert.deepEqual(told, []);
    attempts.recordFailure('a', 1009);
    assert.deepEqual(told, ['a']);
  });

  test('failures older than the window do not count', () => {
    const attempts = new FailedAttempts(limits);
    for (let i = 0; i < 9; i++) attempts.recordFailure('a', i);
    attempts.recordFailure('a', 60_000);
    assert.equal(attempts.blockedForMs('a', 60_000), 0);
  });

  test('other addresses are not affected', () => {
    const attempts = new FailedAttempts(limits);
    for (let i = 0; i < 10; i++) attempts.recordFailure('a', 0);
    assert.ok(attempts.blockedForMs('a', 0) > 0);
    assert.equal(attempts.blockedForMs('b', 0), 0);
  });

  test('a right password forgets the address\'s earlier mistakes', () => {
    const attempts = new FailedAttempts(limits);
    for (let i = 0; i < 9; i++) attempts.recordFailure('a', 0);
    attempts.recordSuccess('a');
    attempts.recordFailure('a', 1);
    assert.equal(attempts.blockedForMs('a', 1), 0);
  });

  test('the failure that reaches the limit says until when it blocks; the others say 0', () => {
    const attempts = new FailedAttempts(limits);
    for (let i = 0; i < 9; i++) assert.equal(attempts.recordFailure('a', 1000), 0);
    assert.equal(attempts.recordFailure('a', 1000), 61_000);
    assert.deepEqual(attempts.blocked(1000), [['a', 61_000]]);
    assert.deepEqual(attempts.blocked(61_000), [], 'no longer blocked once the window has passed');
  });

  test('after a block ends, counting starts afresh', () => {
    const attempts = new FailedAttempts(limits);
    for (let i = 0; i < 10; i++) attempts.recordFailure('a', 0);
    attempts.recordFailure('a', 60_000);
    assert.equal(attempts.blockedForMs('a', 60_000), 0);
  });
});

describe('FailedAttempts: memory stays bounded under a flood of distinct addresses', () => {
  test(`100 000 addresses -> at most ${MAX_TRACKED_ADDRESSES} remembered`, () => {
    const attempts = new FailedAttempts(limits);
    for (let i = 0; i < 100_000; i++) attempts.recordFailure(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, i);
    assert.equal(attempts.tracked, MAX_TRACKED_ADDRESSES);
  });

  test('the address that failed longest ago is forgotten first; a recent failure keeps one remembered', () => {
    const attempts = new FailedAttempts({ ...limits, testing: { maxTracked: 3 } });
    for (let i = 0; i < 9; i++) attempts.recordFailure('old', 0);
    for (let i = 0; i < 8; i++) attempts.recordFailure('kept', 0);
    attempts.recordFailure('x', 1);
    attempts.recordFailure('kept', 2);
    assert.equal(attempts.blockedForMs('kept', 2), 0, 'nine failures so far');
    attempts.recordFailure('y', 3);
    assert.equal(attempts.tracked, 3);
    attempts.recordFailure('old', 4);
    assert.equal(attempts.blockedForMs('old', 4), 0, '"old" was forgotten: its tenth failure starts a new count');
    attempts.recordFailure('kept', 5);
    assert.ok(attempts.blockedForMs('kept', 5) > 0, '"kept" failed recently and was remembered: this is its tenth');
  });
});
