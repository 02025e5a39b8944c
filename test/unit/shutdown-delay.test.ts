import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, DEFAULT_SHUTDOWN_DELAY_S, loadConfig } from '../../src/config/environment.js';
import { ShutdownDelay } from '../../src/supervisor/shutdown-delay.js';

describe('SHUTDOWN_DELAY_S', () => {
  const accepted: Array<[string | undefined, number]> = [
    [undefined, DEFAULT_SHUTDOWN_DELAY_S],
    ['', DEFAULT_SHUTDOWN_DELAY_S],
    ['0', 0],
    ['5', 5],
    ['600', 600],
  ];
  for (const [value, seconds] of accepted) {
    test(`SHUTDOWN_DELAY_S=${JSON.stringify(value)} -> ${seconds} s`, () => {
      assert.equal(loadConfig(value === undefined ? {} : { SHUTDOWN_DELAY_S: value }).shutdownDelaySeconds, seconds);
    });
  }

  for (const value of ['601', '-1', '1.5', '5s', 'abc', ' 5', '99999']) {
    test(`SHUTDOWN_DELAY_S=${JSON.stringify(value)} -> a one-line ConfigError naming SHUTDOWN_DELAY_S`, () => {
      assert.throws(
        () => loadConfig({ SHUTDOWN_DELAY_S: value }),
        (error: unknown) => error instanceof ConfigError && /\bSHUTDOWN_DELAY_S\b/.test(error.message) && !error.message.includes('\n'),
      );
    });
  }
});

describe('ShutdownDelay', () => {
  test('0 ms: over at once, not skipped', async () => {
    assert.equal(await new ShutdownDelay(0).wait(), false);
  });

  test('skip() during the pause ends it early and says so', async () => {
    const delay = new ShutdownDelay(600_000);
    const waiting = delay.wait();
    delay.skip();
    assert.equal(await waiting, true);
  });

  test('skip() before the pause begins cancels it (the primary\'s word may come before the signal)', async () => {
    const delay = new ShutdownDelay(600_000);
    delay.skip();
    assert.equal(await delay.wait(), true);
  });

  test('a pause that is not skipped ends by itself', async () => {
    assert.equal(await new ShutdownDelay(10).wait(), false);
  });
});
