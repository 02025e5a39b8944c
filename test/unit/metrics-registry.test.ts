import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { exposition } from '../../src/metrics/exposition.js';
import { mergeSnapshots, Registry, type HistogramSeries, type Series } from '../../src/metrics/registry.js';

function workerRegistry(requests: number, lag: number, observations: number[]): Registry {
  const registry = new Registry();
  registry.counter('requests_total', 'Requests.', ['route']).labels('/a').inc(requests);
  const sizes = registry.histogram('size', 'Sizes.', ['kind'], [1, 4]);
  for (const value of observations) sizes.labels('read').observe(value);
  registry.collected('gauge', 'lag_seconds', 'Lag.', () => lag, 'max');
  registry.collected('gauge', 'memory_bytes', 'Memory.', () => 100);
  return registry;
}

describe('mergeSnapshots: the figures of several processes as one', () => {
  test('counters and histograms are added up, sum gauges added, max gauges take the highest', async () => {
    const merged = mergeSnapshots([
      await workerRegistry(3, 0.002, [1, 3]).snapshot(),
      await workerRegistry(5, 0.009, [8]).snapshot(),
    ]);
    const byName = new Map(merged.map((metric) => [metric.name, metric]));
    assert.equal((byName.get('requests_total')!.series[0] as Series).value, 8);
    const sizes = byName.get('size')!.series[0] as HistogramSeries;
    assert.deepEqual(sizes.counts, [1, 1, 1]);
    assert.equal(sizes.sum, 12);
    assert.equal((byName.get('lag_seconds')!.series[0] as Series).value, 0.009);
    assert.equal((byName.get('memory_bytes')!.series[0] as Series).value, 200);
  });

  test('series with different labels stay apart; a series only one process has is kept', async () => {
    const one = new Registry();
    one.counter('c_total', 'C.', ['route']).labels('/a').inc(1);
    const two = new Registry();
    two.counter('c_total', 'C.', ['route']).labels('/b').inc(2);
    const [merged] = mergeSnapshots([await one.snapshot(), await two.snapshot()]);
    assert.deepEqual(merged!.series, [{ labels: ['/a'], value: 1 }, { labels: ['/b'], value: 2 }]);
  });

  test('merging does not change the snapshots it was given', async () => {
    const snapshot = await workerRegistry(1, 0, [1]).snapshot();
    const copy = structuredClone(snapshot);
    mergeSnapshots([snapshot, snapshot]);
    assert.deepEqual(snapshot, copy);
  });
});

describe('exposition: the Prometheus text format, read back by a real parser', () => {
  test('label values with quotes, backslashes and newlines are escaped and read back intact', async () => {
    const registry = new Registry();
    registry.counter('odd_total', 'Odd labels.', ['value']).labels('a "quoted" \\ back\nslash').inc();
    const [parsed] = parsePrometheusTextFormat(exposition(await registry.snapshot()));
    assert.equal(parsed!.metrics[0]!.labels!.value, 'a "quoted" \\ back\nslash');
  });

  test('a histogram has cumulative buckets ending in +Inf, a sum and a count', async () => {
    const registry = new Registry();
    const cell = registry.histogram('h', 'H.', [], [0.1, 1]).labels();
    for (const value of [0.05, 0.5, 0.7, 3]) cell.observe(value);
    const text = exposition(await registry.snapshot());
    assert.match(text, /^h_bucket\{le="0.1"\} 1$/m);
    assert.match(text, /^h_bucket\{le="1"\} 3$/m);
    assert.match(text, /^h_bucket\{le="\+Inf"\} 4$/m);
    assert.match(text, /^h_sum 4.25$/m);
    assert.match(text, /^h_count 4$/m);
    const [parsed] = parsePrometheusTextFormat(text);
    assert.equal(parsed!.type, 'HISTOGRAM');
    assert.deepEqual(parsed!.metrics[0]!.buckets, { '0.1': '1', '1': '3', '+Inf': '4' });
  });

  test('a metric name defined twice is refused', () => {
    const registry = new Registry();
    registry.counter('x_total', 'X.', []);
    assert.throws(() => registry.counter('x_total', 'X.', []));
  });
});
