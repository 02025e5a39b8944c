import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_TRACKED_KEYS, WindowCounter } from '../../src/limits/window-counter.js';

const settings = { requests: 3, windowSeconds: 10 };

describe('WindowCounter: at most `requests` per key in a fixed window opened by its first request', () => {
  test('each take says what is left and when the window ends; past the limit -> -1', () => {
    const counter = new WindowCounter(settings);
    assert.deepEqual(counter.take('a', 1000), [2, 11_000]);
    assert.deepEqual(counter.take('a', 5000), [1, 11_000]);
    assert.deepEqual(counter.take('a', 10_999), [0, 11_000]);
    assert.deepEqual(counter.take('a', 10_999), [-1, 11_000]);
  });

  test('the first take after the window ends opens a new one with a whole allowance', () => {
    const counter = new WindowCounter(settings);
    for (let i = 0; i < 4; i++) counter.take('a', 0);
    assert.deepEqual(counter.take('a', 10_000), [2, 20_000]);
  });

  test('keys are counted apart', () => {
    const counter = new WindowCounter(settings);
    for (let i = 0; i < 4; i++) counter.take('a', 0);
    assert.deepEqual(counter.take('b', 0), [2, 10_000]);
  });
});

describe('WindowCounter: memory stays bounded under a flood of distinct keys', () => {
  test(`200 000 keys -> at most ${MAX_TRACKED_KEYS} counted`, () => {
    const counter = new WindowCounter(settings);
    for (let i = 0; i < 200_000; i++) counter.take(`ip:${i}`, i);
    assert.equal(counter.tracked, MAX_TRACKED_KEYS);
  });

  test('the key whose window began longest ago is forgotten first; a new window keeps a key remembered', () => {
    const counter = new WindowCounter({ ...settings, testing: { maxTracked: 2 } });
    for (let i = 0; i < 3; i++) counter.take('old', 0);
    for (let i = 0; i < 3; i++) counter.take('renewed', 0);
    counter.take('renewed', 10_000);
    counter.take('new', 10_001);
    assert.equal(counter.tracked, 2);
    assert.deepEqual(counter.take('old', 10_002), [2, 20_002], '"old" was forgotten: a new window');
    assert.deepEqual(counter.take('new', 10_003), [1, 20_001], '"new" is still counted');
  });
});
