import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultBatching, type TracingSettings } from '../../src/config/tracing-settings.js';
import { createLogger } from '../../src/log/logger.js';
import { startTracing, type Tracing } from '../../src/tracing/tracing.js';
import { Receiver } from '../events/support/receiver.js';
import { endpointRegistered, webhookEvents } from '../events/support/webhooks.js';
import { request, type ApiResponse } from '../helpers/http.js';
import { scrape, valueOf } from '../helpers/metrics.js';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SERVER = 2;
const CLIENT = 3;

/** Batches go out a tenth of a second after their first span, not the SDK's five seconds, to keep the tests short. */
function settings(receiver: OtlpReceiver, given: Partial<TracingSettings> = {}): TracingSettings {
  const batching = { ...defaultBatching, delayMs: 100 };
  return { url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json', headers: {}, serviceName: 'users-under-test', sampler: 'parentbased_traceidratio', ratio: 1, batching, ...given };
}

function spanOf(res: ApiResponse): { traceId: string; spanId: string; flags: string } {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/.exec(res.headers.get('traceparent') ?? '');
  assert.ok(match, 'a traceparent');
  return { traceId: match[1]!, spanId: match[2]!, flags: match[3]! };
}

describe('OTLP/HTTP JSON: a create followed from its caller through its statements to its webhook', () => {
  let collector: OtlpReceiver;
  let hooks: Receiver;
  let tracing: Tracing;
  let service: RunningService;
  const lines: string[] = [];
  before(async () => {
    collector = await OtlpReceiver.start();
    hooks = await Receiver.start();
    tracing = await startTracing(settings(collector, { headers: { 'x-api-key': 'collector-key-1' } }), createLogger((line) => lines.push(line)));
    service = await startService('otel_json', { tracing, events: webhookEvents(hooks), metrics: { onApiPort: true } });
    await endpointRegistered(service.db);
  });
  after(async () => {
    await service.close();
    await hooks.close();
    await collector.close();
  });

  test("the server span continues the caller's trace, its statements are its children, and the webhook attempt joins the trace", async () => {
    const created = await request(service.baseUrl, 'POST', '/api/users', {
      json: { name: 'Followed', email: 'followed@trace.example' },
      headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, 'user-agent': 'trace-test/1.0' },
    });
    assert.equal(created.status, 201);
    const mine = spanOf(created);
    assert.equal(mine.traceId, CALLER_TRACE);
    assert.equal(mine.flags, '01');
    const inTrace = (): ReceivedSpan[] => collector.spans().filter((span) => span.traceId === CALLER_TRACE);
    await waitUntil('the server span, a statement span and the attempt span', () => {
      const spans = inTrace();
      return spans.some((span) => span.kind === SERVER) && spans.some((span) => span.name === 'POST' && span.kind === CLIENT) && spans.some((span) => 'db.query.text' in span.attributes);
    }, { timeoutMs: 30_000 });

    const server = inTrace().find((span) => span.kind === SERVER)!;
    assert.equal(server.spanId, mine.spanId, 'the span the response named');
    assert.equal(server.parentSpanId, CALLER_SPAN);
    assert.equal(server.name, 'POST /api/users');
    assert.equal(server.serviceName, 'users-under-test');
    assert.deepEqual(
      { ...server.attributes, 'server.port': undefined },
      {
        'http.request.method': 'POST',
        'http.route': '/api/users',
        'url.path': '/api/users',
        'url.scheme': 'http',
        'http.response.status_code': 201,
        'server.port': undefined,
        'user_agent.original': 'trace-test/1.0',
        'network.protocol.version': '1.1',
      },
    );
    assert.equal(server.attributes['server.port'], Number(new URL(service.baseUrl).port));

    const statements = inTrace().filter((span) => 'db.query.text' in span.attributes);
    assert.ok(statements.length >= 1);
    for (const statement of statements) {
      assert.equal(statement.kind, CLIENT);
      assert.equal(statement.parentSpanId, server.spanId, `${statement.name}: a child of the request's span`);
      assert.equal(statement.attributes['db.system.name'], 'mariadb');
      assert.equal(statement.attributes['db.namespace'], service.db.config.database);
      assert.equal(statement.attributes['server.address'], '127.0.0.1');
      const text = String(statement.attributes['db.query.text']);
      assert.ok(!text.includes('followed@trace.example') && !text.includes('Followed'), `no values in ${text}`);
    }
    const insert = statements.find((span) => span.attributes['db.operation.name'] === 'INSERT' && /INSERT INTO users/.test(String(span.attributes['db.query.text'])));
    assert.ok(insert, 'the INSERT of the user');

    const attempt = inTrace().find((span) => span.name === 'POST' && span.kind === CLIENT)!;
    assert.equal(attempt.parentSpanId, server.spanId, "the attempt is a child of the request's span");
    assert.equal(attempt.attributes['webhook.event_type'], 'user.created');
    assert.equal(attempt.attributes['http.request.method'], 'POST');
    const delivered = hooks.acknowledged().find((one) => one.event.type === 'user.created' && one.event.data.email === 'followed@trace.example')!;
    assert.equal(delivered.traceparent, `00-${CALLER_TRACE}-${attempt.spanId}-01`, 'the receiver got the attempt span in traceparent');
    assert.equal(collector.exports[0]!.headers['x-api-key'], 'collector-key-1', 'OTEL_EXPORTER_OTLP_HEADERS sent');
  });

  test("the list, a page of it, a count and an email lookup: each statement a child of its request's span", async () => {
    const requests = [`/api/users?pwd=${TEST_PASSWORD}`, `/api/users?pwd=${TEST_PASSWORD}&limit=2`, `/api/users?pwd=${TEST_PASSWORD}&email=followed@trace.example`];
    for (const [i, path] of requests.entries()) {
      const trace = `${String(i + 1).padStart(2, '0')}${CALLER_TRACE.slice(2)}`;
      const res = await request(service.baseUrl, 'GET', path, { headers: { traceparent: `00-${trace}-${CALLER_SPAN}-01`, prefer: 'count=exact' } });
      assert.equal(res.status, 200, path);
      const server = spanOf(res).spanId;
      await waitUntil(`a statement of ${path}`, () => collector.spans().some((span) => span.traceId === trace && span.parentSpanId === server && span.attributes['db.operation.name'] === 'SELECT'), { timeoutMs: 30_000 });
    }
  });

  test('/metrics counts the spans exported', async () => {
    const exported = valueOf(await scrape(`${service.baseUrl}/metrics`), 'tracing_spans_exported_total');
    assert.ok(exported > 0, `exported ${exported}`);
  });
});

describe('OTLP/HTTP protobuf (the default protocol)', () => {
  let collector: OtlpReceiver;
  let service: RunningService;
  before(async () => {
    collector = await OtlpReceiver.start();
    const tracing = await startTracing(settings(collector, { protocol: 'http/protobuf' }), createLogger(() => {}));
    service = await startService('otel_proto', { tracing });
  });
  after(async () => {
    await service.close();
    await collector.close();
  });

  test('spans go out as application/x-protobuf holding the trace id\'s bytes', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/users/1', { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    assert.equal(res.status, 200);
    const traceBytes = Buffer.from(CALLER_TRACE, 'hex');
    const spanBytes = Buffer.from(spanOf(res).spanId, 'hex');
    await waitUntil('a protobuf export of the trace', () => collector.exports.some((one) => one.body.includes(traceBytes) && one.body.includes(spanBytes)), { timeoutMs: 30_000 });
    const received = collector.exports.find((one) => one.body.includes(traceBytes))!;
    assert.equal(received.contentType, 'application/x-protobuf');
  });
});

describe('OTEL_TRACES_SAMPLER', () => {
  const cases: Array<[string, Partial<TracingSettings>, string | undefined, boolean]> = [
    ['always_off: a sampled caller is not exported', { sampler: 'always_off' }, '01', false],
    ['parentbased_traceidratio 0: a new trace is not sampled', { ratio: 0 }, undefined, false],
    ['parentbased_traceidratio 0: a sampled caller is followed', { ratio: 0 }, '01', true],
    ['parentbased_traceidratio 1: an unsampled caller is followed', { ratio: 1 }, '00', false],
    ['traceidratio 1: a new trace is sampled', { sampler: 'traceidratio', ratio: 1 }, undefined, true],
  ];
  for (const [rule, given, callerFlags, exported] of cases) {
    test(rule, async () => {
      const collector = await OtlpReceiver.start();
      const tracing = await startTracing(settings(collector, given), createLogger(() => {}));
      const service = await startService('otel_sampler', { tracing });
      let res: ApiResponse;
      try {
        res = await request(service.baseUrl, 'GET', '/api/users/2', callerFlags ? { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-${callerFlags}` } } : {});
        assert.equal(res.status, 200);
      } finally {
        // The graceful stop sends whatever is queued.
        await service.close();
      }
      const mine = spanOf(res);
      assert.equal(mine.flags, exported ? '01' : '00');
      assert.equal(collector.spans().some((span) => span.spanId === mine.spanId), exported);
      await collector.close();
    });
  }
});

describe('a collector that refuses or never answers changes no answer', () => {
  for (const answer of [503, 'hang'] as const) {
    test(`collector answering ${answer}: every request answered as usual, the spans dropped are counted and warned about once`, async () => {
      const collector = await OtlpReceiver.start();
      collector.answer = answer;
      const lines: string[] = [];
      const tracing = await startTracing(settings(collector), createLogger((line) => lines.push(line)));
      const service = await startService('otel_down', { tracing, metrics: { onApiPort: true } });
      try {
        for (let round = 0; round < 3; round++) {
          const answers = await Promise.all([
            ...Array.from({ length: 20 }, (_, i) => request(service.baseUrl, 'GET', `/api/users/${(i % 10) + 1}`)),
            request(service.baseUrl, 'POST', '/api/users', { json: { name: `Down ${round}`, email: `down-${round}@trace.example` } }),
            request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}&limit=5`),
          ]);
          assert.deepEqual(answers.map((res) => res.status), [...Array(20).fill(200), 201, 200]);
        }
        if (answer === 503) {
          await waitUntil('spans dropped', async () => valueOf(await scrape(`${service.baseUrl}/metrics`), 'tracing_spans_dropped_total') > 0, { timeoutMs: 30_000 });
          const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === 'trace spans dropped: the collector did not take them');
          assert.equal(warnings.length, 1, 'one warning a minute at most');
        } else {
          await waitUntil('an export held open', () => collector.exports.length > 0, { timeoutMs: 30_000 });
        }
      } finally {
        await collector.close();
        await service.close();
      }
    });
  }
});
