import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { EndpointHealth } from '../../src/events/webhooks/endpoint-health.js';
import { webhookMetrics } from '../../src/events/webhooks/metrics.js';
import { shownUrl } from '../../src/events/webhooks/shown-url.js';
import { createLogger } from '../../src/log/logger.js';
import { exposition } from '../../src/metrics/exposition.js';
import { mergeSnapshots, Registry } from '../../src/metrics/registry.js';

const failed = (error = 'HTTP 500') => ({ kind: 'failed', error, reason: null, status: Number(error.slice('HTTP '.length)), body: null, durationMs: 1 }) as const;
const acknowledged = { kind: 'acknowledged', status: 204, body: null, durationMs: 1 } as const;

describe('an endpoint\'s health: failing and recovered, logged once each', () => {
  const logged = () => {
    const lines: string[] = [];
    const health = new EndpointHealth('https://hooks.example/users', createLogger((line) => lines.push(line)));
    const messages = () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    return { health, lines, messages };
  };

  test('many failed attempts in a row: one warning, with the first failure; then one line at the first success, counting them', () => {
    const { health, lines, messages } = logged();
    health.attempted(1, acknowledged);
    for (let i = 0; i < 5; i++) health.attempted(2 + i, failed(i === 0 ? 'HTTP 503' : 'HTTP 500'));
    health.attempted(9, acknowledged);
    health.attempted(10, acknowledged);
    assert.deepEqual(messages(), ['webhook endpoint failing, its deliveries are retried', 'webhook endpoint recovered']);
    const [failing, recovered] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(failing!.level, 'warn');
    assert.equal(failing!.eventId, 2);
    assert.equal(failing!.error, 'HTTP 503');
    assert.equal(recovered!.failedAttempts, 5);
  });

  test('an attempt cut short is neither a failure nor a recovery', () => {
    const { health, messages } = logged();
    health.attempted(1, failed());
    health.attempted(2, { kind: 'stopped' });
    assert.deepEqual(messages(), ['webhook endpoint failing, its deliveries are retried']);
  });

  test('forgotten (the lease given up), a later success says nothing and a later failure warns again', () => {
    const { health, messages } = logged();
    health.attempted(1, failed());
    health.forget();
    health.attempted(2, acknowledged);
    health.attempted(3, failed());
    assert.deepEqual(messages(), ['webhook endpoint failing, its deliveries are retried', 'webhook endpoint failing, its deliveries are retried']);
  });
});

describe('the gauges of deliveries left per endpoint', () => {
  test('shown only while the counting process still counts; two URLs differing in their query add up', async () => {
    const registry = new Registry();
    const { endpoints } = webhookMetrics(registry);
    let counting = true;
    endpoints!.show(
      [
        { endpoint: 'https://a.example/hooks', pending: 2, failed: 1 },
        { endpoint: 'https://a.example/hooks', pending: 3, failed: 0 },
        { endpoint: 'https://b.example/hooks', pending: 0, failed: 0 },
      ],
      () => counting,
    );
    const families = parsePrometheusTextFormat(exposition(await registry.snapshot()));
    const pending = families.find((found) => found.name === 'webhook_deliveries_pending')!;
    assert.equal(pending.type, 'GAUGE');
    assert.deepEqual(pending.metrics.map((sample) => [sample.labels?.endpoint, sample.value]), [['https://a.example/hooks', '5'], ['https://b.example/hooks', '0']]);
    counting = false;
    const after = (await registry.snapshot()).find((metric) => metric.name === 'webhook_deliveries_pending')!;
    assert.deepEqual(after.series, []);
  });

  test('merged across workers, the counting process\'s figures stand alone: the others add nothing', async () => {
    const counter = new Registry();
    webhookMetrics(counter).endpoints!.show([{ endpoint: 'https://a.example/hooks', pending: 4, failed: 2 }], () => true);
    const other = new Registry();
    webhookMetrics(other);
    const merged = mergeSnapshots([await counter.snapshot(), await other.snapshot()]);
    const failedSeries = merged.find((metric) => metric.name === 'webhook_deliveries_failed')!.series;
    assert.deepEqual(failedSeries, [{ labels: ['https://a.example/hooks'], value: 2 }]);
  });
});

describe('an endpoint as it is shown', () => {
  test('without its query or fragment, which may carry a token', () => {
    assert.equal(shownUrl('https://hooks.example/users?token=s3cret#x'), 'https://hooks.example/users');
    assert.equal(shownUrl('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080/');
    assert.equal(shownUrl('not a url?token=s3cret'), 'not a url');
  });
});
