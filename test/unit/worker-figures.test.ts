import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry, type HistogramSeries, type Series, type Snapshot } from '../../src/metrics/registry.js';
import { WorkerFigures } from '../../src/metrics/worker-figures.js';

/** One worker's figures: every kind of metric the registry has. */
function worker(requests: number, observations: number[], cpu: number, memory: number, lag: number): Promise<Snapshot> {
  const registry = new Registry();
  registry.counter('requests_total', 'Requests.', ['route']).labels('/a').inc(requests);
  const sizes = registry.histogram('size', 'Sizes.', ['kind'], [1, 4]);
  for (const value of observations) sizes.labels('read').observe(value);
  registry.collected('counter', 'cpu_seconds_total', 'CPU.', () => cpu);
  registry.collected('gauge', 'memory_bytes', 'Memory.', () => memory);
  registry.collected('gauge', 'lag_seconds', 'Lag.', () => lag, 'max');
  return registry.snapshot();
}

function read(snapshot: Snapshot, name: string): Series | HistogramSeries | undefined {
  return snapshot.find((metric) => metric.name === name)?.series[0];
}

describe('WorkerFigures: the primary\'s memory of its workers\' figures', () => {
  test('living workers are merged: counters and histograms added, gauges by their rule', async () => {
    const figures = new WorkerFigures();
    figures.record(1, 1, await worker(3, [1, 3], 0.5, 100, 0.002));
    figures.record(2, 1, await worker(5, [8], 0.25, 200, 0.009));
    const merged = figures.merged();
    assert.equal((read(merged, 'requests_total') as Series).value, 8);
    assert.deepEqual((read(merged, 'size') as HistogramSeries).counts, [1, 1, 1]);
    assert.equal((read(merged, 'cpu_seconds_total') as Series).value, 0.75);
    assert.equal((read(merged, 'memory_bytes') as Series).value, 300);
    assert.equal((read(merged, 'lag_seconds') as Series).value, 0.009);
  });

  test('a worker gone keeps its counters, histograms and counted CPU; its gauges leave with it', async () => {
    const figures = new WorkerFigures();
    figures.record(1, 1, await worker(3, [1, 3], 0.5, 100, 0.002));
    figures.record(2, 1, await worker(5, [8], 0.25, 200, 0.009));
    figures.retire(2);
    figures.record(3, 1, await worker(1, [2], 0.125, 50, 0.001));
    const merged = figures.merged();
    assert.equal((read(merged, 'requests_total') as Series).value, 9);
    const sizes = read(merged, 'size') as HistogramSeries;
    assert.deepEqual(sizes.counts, [1, 2, 1]);
    assert.equal(sizes.sum, 14);
    assert.equal((read(merged, 'cpu_seconds_total') as Series).value, 0.875);
    assert.equal((read(merged, 'memory_bytes') as Series).value, 150, 'the living two only');
    assert.equal((read(merged, 'lag_seconds') as Series).value, 0.002, 'the living two only');
  });

  test('every worker gone: their counts stay, no gauge is shown', async () => {
    const figures = new WorkerFigures();
    figures.record(1, 1, await worker(3, [], 0.5, 100, 0.002));
    figures.retire(1);
    figures.retire(1);
    const merged = figures.merged();
    assert.equal((read(merged, 'requests_total') as Series).value, 3, 'retired once');
    assert.deepEqual(merged.map((metric) => metric.type).filter((type) => type === 'gauge'), []);
  });

  test('an older snapshot arriving late does not replace a newer one', async () => {
    const figures = new WorkerFigures();
    figures.record(1, 2, await worker(7, [], 0, 0, 0));
    figures.record(1, 1, await worker(4, [], 0, 0, 0));
    assert.equal((read(figures.merged(), 'requests_total') as Series).value, 7);
  });

  test('a worker that never sent anything retires without a trace', () => {
    const figures = new WorkerFigures();
    figures.retire(4);
    assert.deepEqual(figures.merged(), []);
  });
});
