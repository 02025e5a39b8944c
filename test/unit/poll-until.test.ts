import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pollUntil } from '../helpers/poll-until.js';

const failure = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

describe('the tests\' bounded waits', () => {
  test('a probe that could not reach its server is asked again', async () => {
    let asked = 0;
    const value = await pollUntil('a server to answer', () => {
      asked++;
      if (asked < 3) throw failure(asked === 1 ? 'ETIMEDOUT' : 'ECONNREFUSED');
      return 'answered';
    }, { intervalMs: 1 });
    assert.deepEqual([value, asked], ['answered', 3]);
  });

  test('any other error of a probe ends the wait at once', async () => {
    let asked = 0;
    await assert.rejects(pollUntil('a state', () => {
      asked++;
      throw failure('ER_NO_SUCH_TABLE');
    }, { intervalMs: 1 }), /ER_NO_SUCH_TABLE/);
    assert.equal(asked, 1);
  });

  test('a server never reached ends the wait at its deadline, naming the last failure', async () => {
    await assert.rejects(pollUntil('a server to answer', () => {
      throw failure('ETIMEDOUT');
    }, { timeoutMs: 20, intervalMs: 1 }), /Timed out after 20 ms waiting for a server to answer \(last probe: connect ETIMEDOUT\)/);
  });
});
