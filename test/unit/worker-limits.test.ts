import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { SharedAttempts } from '../../src/limits/shared-attempts.js';
import { PrimaryLink } from '../../src/limits/primary-link.js';
import type { CountAsk } from '../../src/limits/messages.js';

/** A worker's IPC channel to a primary that is not there: it records what is sent, and the test answers. */
class FakeChannel extends EventEmitter {
  connected = true;
  readonly sent: unknown[] = [];
  send(message: unknown, _handle?: unknown, _options?: object, callback?: (error: Error | null) => void): boolean {
    this.sent.push(message);
    callback?.(null);
    return true;
  }
  asks(): CountAsk[] {
    return this.sent.filter((message): message is CountAsk => (message as CountAsk).type === 'limits:ask');
  }
  answer(id: number, results: Array<readonly [number, number] | null>): void {
    this.emit('message', { type: 'limits:answer', id, results });
  }
}

const limits = { maxFailures: 10, windowSeconds: 60 };
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('PrimaryLink: a worker\'s counts, asked of its primary', () => {
  test('every ask of one event-loop turn goes in one message, and each gets its own result', async () => {
    const channel = new FakeChannel();
    const link = new PrimaryLink(channel);
    const asked = [link.ask('take', 'ip:a'), link.ask('take', 'ip:b'), link.ask('fail', 'c')];
    await turn();
    const [ask] = channel.asks();
    assert.equal(channel.asks().length, 1);
    assert.deepEqual(ask!.calls, [['take', 'ip:a'], ['take', 'ip:b'], ['fail', 'c']]);
    channel.answer(ask!.id, [[4, 1000], [-1, 2000], [0, 0]]);
    assert.deepEqual(await Promise.all(asked), [[4, 1000], [-1, 2000], [0, 0]]);
  });

  test('no primary to answer (disconnected) -> undefined, so the request goes on uncounted', async () => {
    const channel = new FakeChannel();
    const link = new PrimaryLink(channel);
    const asked = link.ask('take', 'ip:a');
    await turn();
    channel.emit('disconnect');
    assert.equal(await asked, undefined);
    channel.connected = false;
    assert.equal(await link.ask('take', 'ip:a'), undefined);
  });
});

describe('SharedAttempts: a worker\'s view of the wrong passwords its primary counts', () => {
  test('a right password from an address this worker never saw fail -> 0 at once, with no message to the primary', () => {
    const channel = new FakeChannel();
    const attempts = new SharedAttempts(new PrimaryLink(channel), limits, channel);
    assert.equal(attempts.blockedForMs('a'), 0);
    assert.equal(attempts.succeeded('a'), 0);
    assert.deepEqual(channel.sent, [{ type: 'limits:hello' }], 'only the hello sent at start');
  });

  test('an address the primary pushed as blocked is refused without asking', () => {
    const channel = new FakeChannel();
    const attempts = new SharedAttempts(new PrimaryLink(channel), limits, channel);
    channel.emit('message', { type: 'limits:blocked', blocked: [['a', Date.now() + 30_000]] });
    const waitMs = attempts.blockedForMs('a');
    assert.ok(waitMs > 29_000 && waitMs <= 30_000, String(waitMs));
    assert.equal(attempts.blockedForMs('b'), 0);
  });

  test('a wrong password waits for the primary\'s verdict: 0 is a plain refusal; a block is a wait, remembered', async () => {
    const channel = new FakeChannel();
    const attempts = new SharedAttempts(new PrimaryLink(channel), limits, channel);
    const counted = attempts.failed('a');
    await turn();
    channel.answer(channel.asks()[0]!.id, [[0, 0]]);
    assert.equal(await counted, 0);
    const refused = attempts.failed('a');
    await turn();
    channel.answer(channel.asks()[1]!.id, [[Date.now() + 60_000, 0]]);
    assert.ok((await refused) > 59_000);
    assert.ok(attempts.blockedForMs('a') > 59_000, 'the block is known here from now on');
  });

  test('a right password from an address this worker saw fail asks the primary, which may refuse it', async () => {
    const channel = new FakeChannel();
    const attempts = new SharedAttempts(new PrimaryLink(channel), limits, channel);
    const failed = attempts.failed('a');
    await turn();
    channel.answer(channel.asks()[0]!.id, [[0, 0]]);
    await failed;
    const passed = attempts.succeeded('a');
    assert.ok(passed instanceof Promise);
    await turn();
    assert.deepEqual(channel.asks()[1]!.calls, [['pass', 'a']]);
    channel.answer(channel.asks()[1]!.id, [[0, 0]]);
    assert.equal(await passed, 0);
    assert.equal(attempts.succeeded('a'), 0, 'forgiven: the next right password no longer asks');
  });

  test('both views stay bounded: with room for 2, the oldest address is forgotten first', () => {
    const channel = new FakeChannel();
    const attempts = new SharedAttempts(new PrimaryLink(channel), { ...limits, testing: { maxTracked: 2 } }, channel);
    const until = Date.now() + 60_000;
    channel.emit('message', { type: 'limits:blocked', blocked: [['a', until], ['b', until], ['c', until]] });
    assert.equal(attempts.blockedForMs('a'), 0, 'forgotten');
    assert.ok(attempts.blockedForMs('b') > 0 && attempts.blockedForMs('c') > 0);
  });
});
