import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/server.js';
import { ServiceProcess } from '../helpers/child-service.js';
import { request } from '../helpers/http.js';
import { bucketsOf, countOf, family, scrape, valueOf } from '../helpers/metrics.js';
import { dbEnv } from '../helpers/run-script.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

let service: RunningService;
let plain: RunningService;
let separate: RunningService;
let metricsPort: MetricsServer;

before(async () => {
  service = await startService('metrics', { metrics: { onApiPort: true } });
  plain = await startService('metrics_off', { db: service.db });
  separate = await startService('metrics_port', { db: service.db, metrics: { onApiPort: false } });
  metricsPort = await startMetricsServer(() => separate.app.readMetrics(), createQuietLogger(), 0, '127.0.0.1');
});
after(async () => {
  await metricsPort?.close();
  await Promise.all([plain?.close(), separate?.close()]);
  await service?.close();
});

function createQuietLogger() {
  return { request() {}, info() {}, warn() {}, error() {} };
}

const metricsUrl = () => `${service.baseUrl}/metrics`;

describe('METRICS off (the default)', () => {
  test('GET /metrics -> 404 like any unknown path', async () => {
    const res = await request(plain.baseUrl, 'GET', '/metrics');
    assert.equal(res.status, 404);
    assert.deepEqual(res.json, { error: 'Not found' });
  });
});

describe('the served /openapi.json documents /metrics exactly where the server answers it', () => {
  const documentsMetrics = async (baseUrl: string): Promise<boolean> => {
    const paths = ((await request(baseUrl, 'GET', '/openapi.json')).json as { paths: Record<string, unknown> }).paths;
    return '/metrics' in paths;
  };

  test('METRICS=on on the API port: documented', async () => {
    assert.equal(await documentsMetrics(service.baseUrl), true);
  });

  test('METRICS off: left out', async () => {
    assert.equal(await documentsMetrics(plain.baseUrl), false);
  });

  test('METRICS_PORT (served on a port of its own): left out of the API port\'s description', async () => {
    assert.equal(await documentsMetrics(separate.baseUrl), false);
  });
});

describe('METRICS=on: GET /metrics in the Prometheus text format', () => {
  const expected: Array<[string, string]> = [
    ['http_requests_total', 'COUNTER'],
    ['http_request_duration_seconds', 'HISTOGRAM'],
    ['db_operations_total', 'COUNTER'],
    ['db_batch_size', 'HISTOGRAM'],
    ['db_pool_connections_in_use', 'GAUGE'],
    ['db_pool_waiting', 'GAUGE'],
    ['process_resident_memory_bytes', 'GAUGE'],
    ['process_cpu_seconds_total', 'COUNTER'],
    ['nodejs_eventloop_lag_seconds', 'GAUGE'],
    ['process_start_time_seconds', 'GAUGE'],
    ['service_build_info', 'GAUGE'],
  ];
  for (const [name, type] of expected) {
    test(`${name} is exposed as a ${type.toLowerCase()} with help text`, async () => {
      await request(service.baseUrl, 'GET', '/api/users/1');
      const found = family(await scrape(metricsUrl()), name);
      assert.equal(found.type, type);
      assert.ok(found.help.length > 0);
    });
  }

  test('http_requests_total and the duration histogram move as requests are made, labelled by route template', async () => {
    const before = await scrape(metricsUrl());
    const ok = { method: 'GET', route: '/api/users/{id}', status: '200' };
    const missing = { method: 'GET', route: '/api/users/{id}', status: '404' };
    for (let i = 0; i < 3; i++) assert.equal((await request(service.baseUrl, 'GET', `/api/users/${i + 1}`)).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await request(service.baseUrl, 'GET', `/api/users/${900_000 + i}`)).status, 404);
    const after = await scrape(metricsUrl());
    assert.equal(valueOf(after, 'http_requests_total', ok) - valueOf(before, 'http_requests_total', ok), 3);
    assert.equal(valueOf(after, 'http_requests_total', missing) - valueOf(before, 'http_requests_total', missing), 2);
    const durations = { method: 'GET', route: '/api/users/{id}' };
    assert.equal(countOf(after, 'http_request_duration_seconds', durations) - countOf(before, 'http_request_duration_seconds', durations), 5);
    const buckets = bucketsOf(after, 'http_request_duration_seconds', durations);
    assert.equal(buckets['+Inf'], countOf(after, 'http_request_duration_seconds', durations));
    assert.ok((buckets['10'] ?? 0) <= buckets['+Inf']!, 'buckets are cumulative');
  });

  test('the route label is the template or "unmatched", never a raw path', async () => {
    await request(service.baseUrl, 'GET', '/no/such/path/12345');
    await request(service.baseUrl, 'POST', '/api/users/77');
    await request(service.baseUrl, 'OPTIONS', '/api/users/78');
    const families = await scrape(metricsUrl());
    const routes = new Set(family(families, 'http_requests_total').metrics.map((sample) => sample.labels!.route));
    for (const route of routes) assert.ok(!/\d/.test(route!), `raw path in a label: ${route}`);
    assert.ok(routes.has('unmatched'));
    assert.ok(valueOf(families, 'http_requests_total', { method: 'POST', route: '/api/users/{id}', status: '405' }) >= 1);
    assert.ok(valueOf(families, 'http_requests_total', { method: 'OPTIONS', route: '/api/users/{id}', status: '204' }) >= 1);
  });

  test('db_operations_total counts each operation by kind and outcome; db_batch_size observes every batch', async () => {
    const before = await scrape(metricsUrl());
    await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Counted', email: 'counted@example.com' } });
    await request(service.baseUrl, 'GET', '/api/users/1');
    await request(service.baseUrl, 'DELETE', '/api/users/999999');
    await request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
    const after = await scrape(metricsUrl());
    for (const kind of ['create', 'read', 'delete', 'list']) {
      const labels = { kind, outcome: 'ok' };
      assert.equal(valueOf(after, 'db_operations_total', labels) - valueOf(before, 'db_operations_total', labels), 1, kind);
    }
    for (const kind of ['create', 'read', 'list']) {
      assert.ok(countOf(after, 'db_batch_size', { kind }) - countOf(before, 'db_batch_size', { kind }) >= 1, kind);
    }
  });

  test('a failing store operation is counted with outcome "error"', async () => {
    const before = await scrape(metricsUrl());
    await service.db.query('RENAME TABLE users TO users_away');
    try {
      const res = await request(service.baseUrl, 'GET', '/api/users/1');
      assert.deepEqual([res.status, res.json], [500, { error: 'Database error' }]);
    } finally {
      await service.db.query('RENAME TABLE users_away TO users');
    }
    const after = await scrape(metricsUrl());
    const labels = { kind: 'read', outcome: 'error' };
    assert.equal(valueOf(after, 'db_operations_total', labels) - valueOf(before, 'db_operations_total', labels), 1);
  });

  test('the pool and process figures have plausible values', async () => {
    const families = await scrape(metricsUrl());
    assert.ok(valueOf(families, 'process_resident_memory_bytes') > 10 * 1024 * 1024);
    assert.ok(valueOf(families, 'process_cpu_seconds_total') > 0);
    assert.ok(valueOf(families, 'nodejs_eventloop_lag_seconds') >= 0);
    const started = valueOf(families, 'process_start_time_seconds');
    assert.ok(started <= Date.now() / 1000 && started > Date.now() / 1000 - 3600, `a start time within the last hour, got ${started}`);
    assert.ok(valueOf(families, 'db_pool_connections_in_use') >= 0);
    assert.ok(valueOf(families, 'db_pool_waiting') >= 0);
  });
});

describe('METRICS_PORT: /metrics on a port of its own', () => {
  test('served there, and a 404 on the API port', async () => {
    await request(separate.baseUrl, 'GET', '/api/users/1');
    const families = await scrape(`http://127.0.0.1:${metricsPort.address.port}/metrics`);
    assert.ok(valueOf(families, 'http_requests_total', { method: 'GET', route: '/api/users/{id}', status: '200' }) >= 1);
    assert.equal((await request(separate.baseUrl, 'GET', '/metrics')).status, 404);
  });

  test('nothing else is served there', async () => {
    const res = await request(`http://127.0.0.1:${metricsPort.address.port}`, 'GET', '/api/users/1');
    assert.equal(res.status, 404);
  });
});

describe('the service started as in production (src/commands/start.ts) with METRICS=on and METRICS_PORT', () => {
  test('logs the metrics port, serves /metrics there and 404 on the API port', async () => {
    const child = new ServiceProcess({
      ...dbEnv(service.db.config),
      PORT: '0',
      HOST: '127.0.0.1',
      ACCESS_PASSWORD: TEST_PASSWORD,
      METRICS: 'on',
      METRICS_PORT: '0',
    });
    try {
      const apiPort = await child.port();
      const metricsAt = Number((await child.logEntry('metrics listening')).port);
      assert.notEqual(metricsAt, apiPort);
      await child.logEntry('schema ready');
      assert.equal((await request(`http://127.0.0.1:${apiPort}`, 'GET', '/api/users/1')).status, 200);
      const families = await scrape(`http://127.0.0.1:${metricsAt}/metrics`);
      assert.equal(valueOf(families, 'http_requests_total', { method: 'GET', route: '/api/users/{id}', status: '200' }), 1);
      assert.equal((await request(`http://127.0.0.1:${apiPort}`, 'GET', '/metrics')).status, 404);
      child.signal('SIGTERM');
      assert.deepEqual(await child.exited, { code: 0, signal: null });
    } finally {
      await child.stop();
    }
  });
});

test('service_build_info names the running version of the service, Node.js and mysql2', async () => {
  const families = await scrape(metricsUrl());
  const info = families.find((family) => family.name === 'service_build_info');
  assert.ok(info, 'service_build_info is exposed');
  assert.equal(info.metrics.length, 1);
  const { labels, value } = info.metrics[0] as { labels: Record<string, string>; value: string };
  assert.equal(Number(value), 1);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const mysql2 = JSON.parse(readFileSync(new URL('../../node_modules/mysql2/package.json', import.meta.url), 'utf8')) as { version: string };
  assert.deepEqual(labels, { version: pkg.version, node: process.version, mysql2: mysql2.version });
});
