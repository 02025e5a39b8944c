import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/config/environment.js';
import { tracingSettings } from '../../src/config/tracing-settings.js';
import { sampler } from '../../src/tracing/sampler.js';
import { sanitizedStatement } from '../../src/tracing/statement-spans.js';

describe('OTEL_* settings', () => {
  test('no endpoint -> no export (trace context is still passed on)', () => {
    assert.equal(tracingSettings({}), undefined);
    assert.equal(tracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }), undefined);
  });

  test('OTEL_EXPORTER_OTLP_ENDPOINT -> its /v1/traces, protobuf, parentbased_traceidratio 1.0, service user-service', () => {
    assert.deepEqual(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }), {
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'user-service',
      sampler: 'parentbased_traceidratio',
      ratio: 1,
      batching: { maxQueued: 2048, batchSize: 512, delayMs: 5000 },
    });
  });

  test('OTEL_BSP_* set how spans are batched for export', () => {
    const given = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10', OTEL_BSP_SCHEDULE_DELAY: '250' };
    assert.deepEqual(tracingSettings(given)?.batching, { maxQueued: 100, batchSize: 10, delayMs: 250 });
  });

  test('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as it is, and wins', () => {
    assert.equal(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces' })?.url, 'https://b/otlp/traces');
  });

  test('headers are key=value pairs, percent-decoded', () => {
    assert.deepEqual(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%3D%3D, x-team = core%20api' })?.headers, { 'api-key': 'abc==', 'x-team': 'core api' });
  });

  const refused: Array<[string, Record<string, string>, RegExp]> = [
    ['grpc', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json \(grpc is not supported\)/],
    ['an unknown sampler', { OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/],
    ['a ratio above 1', { OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1/],
    ['a ratio that is not a number', { OTEL_TRACES_SAMPLER_ARG: 'half' }, /OTEL_TRACES_SAMPLER_ARG must be a ratio/],
    ['a header without =', { OTEL_EXPORTER_OTLP_HEADERS: 'api-key' }, /OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs/],
    ['a batch larger than the queue', { OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '200' }, /OTEL_BSP_MAX_EXPORT_BATCH_SIZE \(200\) must not exceed OTEL_BSP_MAX_QUEUE_SIZE \(100\)/],
    ['a delay that is not a whole number', { OTEL_BSP_SCHEDULE_DELAY: '0.5' }, /OTEL_BSP_SCHEDULE_DELAY must be a whole number/],
    ['an endpoint that is not a URL', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL/],
  ];
  for (const [what, env, message] of refused) {
    test(`${what} -> ConfigError naming the variable`, () => {
      assert.throws(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', ...env }), (error: unknown) => error instanceof ConfigError && message.test(error.message));
    });
  }
});

describe('samplers', () => {
  const ids = Array.from({ length: 4000 }, (_, i) => i.toString(16).padStart(4, '0').repeat(8));
  const random = Array.from({ length: 4000 }, () => Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join(''));

  test('traceidratio 0.1 samples about a tenth of random trace ids, and always decides one id alike', () => {
    const decide = sampler('traceidratio', 0.1);
    const share = random.filter((id) => decide(id, undefined)).length / random.length;
    assert.ok(share > 0.06 && share < 0.14, `share ${share}`);
    for (const id of ids.slice(0, 50)) assert.equal(decide(id, undefined), decide(id, true));
  });

  test('parent-based samplers follow the caller and decide new traces by their root rule', () => {
    assert.equal(sampler('parentbased_traceidratio', 0)(random[0]!, true), true);
    assert.equal(sampler('parentbased_traceidratio', 1)(random[0]!, false), false);
    assert.equal(sampler('parentbased_traceidratio', 1)(random[0]!, undefined), true);
    assert.equal(sampler('parentbased_always_off', 1)(random[0]!, undefined), false);
    assert.equal(sampler('parentbased_always_on', 0)(random[0]!, undefined), true);
    assert.equal(sampler('always_off', 1)(random[0]!, true), false);
    assert.equal(sampler('always_on', 0)(random[0]!, false), true);
  });
});

describe('statement text without values', () => {
  const cases: Array<[string, string, string]> = [
    ['quoted strings', "INSERT INTO users (name, email) VALUES ('Ann', 'ann@example.com')", 'INSERT INTO users (name, email) VALUES (?, ?)'],
    ['escaped quotes', "SELECT 1 FROM users WHERE name = 'O\\'Brien' OR name = 'It''s'", 'SELECT ? FROM users WHERE name = ? OR name = ?'],
    ['numbers and hex', 'SELECT id FROM users WHERE id IN (12, -3, 4.5e2) AND x = 0xFF LIMIT 100', 'SELECT id FROM users WHERE id IN (?, ?, ?) AND x = ? LIMIT ?'],
    ['placeholders and names with digits stay', 'SELECT t1.id FROM users t1 WHERE t1.id = ?', 'SELECT t1.id FROM users t1 WHERE t1.id = ?'],
  ];
  for (const [what, sql, shown] of cases) {
    test(what, () => assert.equal(sanitizedStatement(sql), shown));
  }
  test('a very long statement is cut', () => {
    assert.ok(sanitizedStatement(`SELECT ${'?, '.repeat(2000)}?`).length <= 2049);
  });
});
