import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Batcher, paddedSize, QueueFullError, type Pending } from '../../src/db/batcher.js';
import { StorageError } from '../../src/errors/storage-error.js';

/** A batch runner that records each batch and finishes only when the test says so. */
function controlledRunner() {
  const batches: number[][] = [];
  const finishers: Array<() => void> = [];
  const run = (batch: ReadonlyArray<Pending<number, number>>) => {
    batches.push(batch.map((pending) => pending.item));
    return new Promise<void>((resolve) =>
      finishers.push(() => {
        for (const pending of batch) pending.resolve(pending.item * 10);
        resolve();
      }),
    );
  };
  return { batches, finishers, run };
}

/** Two turns of the event loop: a finished batch schedules the next flush one turn later. */
const nextTurn = async (): Promise<void> => {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe('Batcher', () => {
  test('items submitted together go out as one batch, and each caller gets its own result', async () => {
    const { batches, finishers, run } = controlledRunner();
    const batcher = new Batcher(run, 2, 64, 100);
    const results = Promise.all([1, 2, 3].map((item) => batcher.submit(item)));
    await nextTurn();
    assert.deepEqual(batches, [[1, 2, 3]]);
    finishers[0]!();
    assert.deepEqual(await results, [10, 20, 30]);
  });

  test('while maxInFlight batches run, new items wait and then leave together in the next batch', async () => {
    const { batches, finishers, run } = controlledRunner();
    const batcher = new Batcher(run, 1, 64, 100);
    const first = batcher.submit(1);
    await nextTurn();
    const later = [2, 3, 4].map((item) => batcher.submit(item));
    await nextTurn();
    assert.deepEqual(batches, [[1]], 'nothing else starts while the limit is reached');
    finishers[0]!();
    await first;
    await nextTurn();
    assert.deepEqual(batches, [[1], [2, 3, 4]]);
    finishers[1]!();
    assert.deepEqual(await Promise.all(later), [20, 30, 40]);
  });

  test('a batch never carries more than maxBatch items', async () => {
    const { batches, finishers, run } = controlledRunner();
    const batcher = new Batcher(run, 4, 2, 100);
    const all = Promise.all([1, 2, 3, 4, 5].map((item) => batcher.submit(item)));
    await nextTurn();
    assert.deepEqual(batches, [[1, 2], [3, 4], [5]]);
    for (const finish of finishers) finish();
    await all;
  });

  test('a failing batch rejects every item it did not settle', async () => {
    const batcher = new Batcher<number, number>(async (batch) => {
      batch[0]!.resolve(1);
      throw new Error('database gone');
    }, 1, 64, 100);
    const [a, b] = [batcher.submit(1), batcher.submit(2)];
    assert.equal(await a, 1);
    await assert.rejects(b, /database gone/);
  });

  test('beyond maxWaiting, submit fails at once with a queue-full StorageError', async () => {
    const { finishers, run } = controlledRunner();
    const batcher = new Batcher(run, 1, 64, 2);
    const first = batcher.submit(1);
    await nextTurn();
    const waiting = [batcher.submit(2), batcher.submit(3)];
    await assert.rejects(batcher.submit(4), (error) => error instanceof StorageError && error.cause instanceof QueueFullError);
    finishers[0]!();
    await first;
    await nextTurn();
    finishers[1]!();
    assert.deepEqual(await Promise.all(waiting), [20, 30]);
  });

  test('padded sizes are powers of two, so few statement shapes exist', () => {
    assert.deepEqual([1, 2, 3, 5, 8, 9, 33, 64].map(paddedSize), [1, 2, 4, 8, 8, 16, 64, 64]);
  });
});
