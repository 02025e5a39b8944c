import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { describe, test } from 'node:test';
import { DeliveryPace } from '../../src/events/webhooks/delivery-pace.js';

/** A task that records its start and ends when told to. */
function controlledTask(started: string[], name: string, starts: EventEmitter): { run: () => Promise<string>; end: () => void } {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    run: async () => {
      started.push(name);
      starts.emit('start', name);
      await ended;
      return name;
    },
    end: () => end(),
  };
}

/** Lets every task that can start do so. */
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Tasks named so, each started through the pace; `started` records the order they began. */
function runAll(pace: DeliveryPace, names: string[]): { started: string[]; tasks: Array<ReturnType<typeof controlledTask>>; results: Array<Promise<string>> } {
  const started: string[] = [];
  const starts = new EventEmitter();
  const tasks = names.map((name) => controlledTask(started, name, starts));
  return { started, tasks, results: tasks.map((task) => pace.run(task.run)) };
}

describe('DeliveryPace: attempts at work across all endpoints of a process', () => {
  test('no more attempts start at once than it has places; the next waits for one to end', async () => {
    const pace = new DeliveryPace(2);
    const { started, tasks, results } = runAll(pace, ['a', 'b', 'c']);
    await tick();
    assert.deepEqual(started, ['a', 'b']);
    tasks[0]!.end();
    assert.equal(await results[0], 'a');
    await tick();
    assert.deepEqual(started, ['a', 'b', 'c']);
    tasks[1]!.end();
    tasks[2]!.end();
    assert.deepEqual(await Promise.all(results), ['a', 'b', 'c']);
  });

  test('places are given in the order they were asked for', async () => {
    const pace = new DeliveryPace(1);
    const { started, tasks, results } = runAll(pace, ['first', 'second', 'third', 'fourth']);
    for (const task of tasks) {
      await tick();
      task.end();
    }
    await Promise.all(results);
    assert.deepEqual(started, ['first', 'second', 'third', 'fourth']);
  });

  test('an attempt left waiting for a slow answer gives its place back, so another endpoint is not held up', async () => {
    const pace = new DeliveryPace(1);
    const started: string[] = [];
    const starts = new EventEmitter();
    const slow = controlledTask(started, 'slow', starts);
    const quick = controlledTask(started, 'quick', starts);
    const slowResult = pace.run(slow.run);
    const quickStarted = once(starts, 'start');
    const quickResult = pace.run(quick.run);
    // The slow one never ends until the quick one has started.
    assert.deepEqual(await quickStarted, ['quick']);
    quick.end();
    assert.equal(await quickResult, 'quick');
    slow.end();
    assert.equal(await slowResult, 'slow');
  });

  test('a task that fails gives its place back and its error to its caller', async () => {
    const pace = new DeliveryPace(1);
    await assert.rejects(pace.run(async () => Promise.reject(new Error('refused'))), /refused/);
    assert.equal(await pace.run(async () => 'next'), 'next');
  });
});

describe('DeliveryPace.crowd: requests crowding the process leave delivery one attempt at a time', () => {
  test('while crowded a second attempt waits for the first; once not, the waiting ones start', async () => {
    const pace = new DeliveryPace(3);
    pace.crowd(true);
    const { started, tasks, results } = runAll(pace, ['a', 'b', 'c']);
    await tick();
    assert.deepEqual(started, ['a']);
    pace.crowd(false);
    await tick();
    assert.deepEqual(started, ['a', 'b', 'c']);
    for (const task of tasks) task.end();
    await Promise.all(results);
  });

  test('attempts already under way when crowding begins go on; new ones start only as places come free', async () => {
    const pace = new DeliveryPace(2);
    const { started, tasks, results } = runAll(pace, ['a', 'b', 'c', 'd']);
    await tick();
    pace.crowd(true);
    tasks[0]!.end();
    await results[0];
    await tick();
    // One place was given back, but "b" still holds the only place crowding leaves.
    assert.deepEqual(started, ['a', 'b']);
    tasks[1]!.end();
    await results[1];
    await tick();
    assert.deepEqual(started, ['a', 'b', 'c']);
    tasks[2]!.end();
    tasks[3]!.end();
    await Promise.all(results);
  });
});
