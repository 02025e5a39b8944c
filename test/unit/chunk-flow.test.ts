import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChunkFlow } from '../../src/db/chunk-flow.js';

/** A flow whose source records what it was asked. */
function flow() {
  const asked = { resumes: 0, reused: [] as string[], stopped: [] as string[] };
  const chunks = new ChunkFlow({
    resume: () => void asked.resumes++,
    reuse: (chunk) => void asked.reused.push(chunk.toString()),
    stop: (reason) => void asked.stopped.push(reason.message),
  });
  return { chunks, asked };
}

describe('ChunkFlow: one chunk in the reader\'s hands, one waiting at most', () => {
  test('a chunk pushed while the reader holds one waits (push answers false); the rows resume once the reader sent it', async () => {
    const { chunks, asked } = flow();
    const pending: Array<() => void> = [];
    const given: string[] = [];
    const sending = chunks.sendTo((chunk, sent) => {
      given.push(chunk.toString());
      pending.push(() => sent());
    });
    assert.equal(chunks.push(Buffer.from('a')), true, 'the reader was free');
    assert.equal(chunks.push(Buffer.from('b')), false, 'the reader holds a');
    assert.equal(chunks.holding, true);
    assert.deepEqual(given, ['a']);
    pending.shift()!();
    await Promise.resolve();
    assert.deepEqual(given, ['a', 'b']);
    assert.deepEqual(asked.reused, ['a']);
    assert.equal(asked.resumes, 1);
    assert.equal(chunks.holding, false);
    chunks.end();
    pending.shift()!();
    await sending;
    assert.deepEqual(asked.reused, ['a', 'b']);
    assert.deepEqual(asked.stopped, []);
  });

  test('chunks pushed before anyone reads wait for sendTo, and a reader that answers at once gets them all in order', async () => {
    const { chunks } = flow();
    assert.equal(chunks.push(Buffer.from('a')), false);
    chunks.end();
    const given: string[] = [];
    await chunks.sendTo((chunk, sent) => {
      given.push(chunk.toString());
      sent();
    });
    assert.deepEqual(given, ['a']);
  });

  test('destroy stops the source and rejects the reader; a reader\'s failure does the same', async () => {
    const destroyed = flow();
    const reading = destroyed.chunks.sendTo(() => {});
    destroyed.chunks.push(Buffer.from('a'));
    destroyed.chunks.destroy(new Error('client gone'));
    await assert.rejects(reading, /client gone/);
    assert.deepEqual(destroyed.asked.stopped, ['client gone']);

    const failing = flow();
    const sending = failing.chunks.sendTo((_chunk, sent) => setImmediate(() => sent(new Error('socket closed'))));
    failing.chunks.push(Buffer.from('a'));
    await assert.rejects(sending, /socket closed/);
    await assert.rejects(failing.chunks.finished, /socket closed/);
    assert.deepEqual(failing.asked.stopped, ['socket closed']);
    assert.deepEqual(failing.asked.reused, [], 'a chunk that was not sent is not filled again');
  });
});
