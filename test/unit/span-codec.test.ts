import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AttributeNames, FinishedSpan } from '../../src/tracing/finished-span.js';
import { hrTimeOf, readableSpan, type SpanOrigin } from '../../src/tracing/otel/readable-span.js';
import { SpanDecoder, SpanEncoder, type DecodedSpan, type EncodedSpans } from '../../src/tracing/otel/span-codec.js';
import type { SpanContext } from '../../src/tracing/trace-context.js';

const SERVER: AttributeNames = ['http.request.method', 'http.route', 'http.response.status_code', 'user_agent.original'];
const STATEMENT: AttributeNames = ['db.operation.name', 'db.query.text', 'server.port'];

const context = (traceId: string, spanId: string, parentSpanId?: string): SpanContext => ({ traceId, spanId, parentSpanId, sampled: true, traceState: undefined });
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

const server: FinishedSpan = {
  span: context(TRACE, '00f067aa0ba902b7', 'a0f067aa0ba902b7'),
  name: 'GET /api/users/{id}',
  kind: 'server',
  startMs: 1_765_000_000_123.25,
  endMs: 1_765_000_000_125.5,
  names: SERVER,
  values: ['GET', '/api/users/{id}', 503, undefined],
  error: '503',
};
const statement: FinishedSpan = {
  span: context(TRACE, '11f067aa0ba902b7', '00f067aa0ba902b7'),
  name: 'SELECT users',
  kind: 'client',
  startMs: 1_765_000_000_124,
  endMs: 1_765_000_000_124.75,
  names: STATEMENT,
  values: ['SELECT', 'SELECT id FROM users WHERE id IN (?, ?)', 3306],
  links: [context('5bf92f3577b34da6a3ce929d0e0e4736', '22f067aa0ba902b7'), context('6bf92f3577b34da6a3ce929d0e0e4736', '33f067aa0ba902b7')],
};

/** A group as the other thread receives it: copied by postMessage's structured clone. */
function crossed(encoder: SpanEncoder): EncodedSpans {
  return structuredClone(encoder.take());
}

function decodedAll(decoder: SpanDecoder, group: EncodedSpans): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  decoder.decode(group, (span) => spans.push(span));
  return spans;
}

test('finished spans cross to the exporter with their ids, times, error, links and attributes intact', () => {
  const encoder = new SpanEncoder();
  encoder.add(server);
  encoder.add(statement);
  const [first, second] = decodedAll(new SpanDecoder(), crossed(encoder));
  assert.deepEqual(first, {
    traceId: TRACE,
    spanId: '00f067aa0ba902b7',
    parentSpanId: 'a0f067aa0ba902b7',
    kind: 'server',
    name: 'GET /api/users/{id}',
    startMs: server.startMs,
    endMs: server.endMs,
    error: '503',
    links: [],
    attributes: { 'http.request.method': 'GET', 'http.route': '/api/users/{id}', 'http.response.status_code': 503 },
  });
  assert.deepEqual(second!.links, [
    { traceId: '5bf92f3577b34da6a3ce929d0e0e4736', spanId: '22f067aa0ba902b7' },
    { traceId: '6bf92f3577b34da6a3ce929d0e0e4736', spanId: '33f067aa0ba902b7' },
  ]);
  assert.equal(second!.error, undefined);
  assert.deepEqual(second!.attributes, { 'db.operation.name': 'SELECT', 'db.query.text': 'SELECT id FROM users WHERE id IN (?, ?)', 'server.port': 3306 });
});

test('an attribute name list crosses once: later groups carry only values and still read back', () => {
  const encoder = new SpanEncoder();
  const decoder = new SpanDecoder();
  encoder.add(server);
  const firstGroup = crossed(encoder);
  assert.equal(firstGroup.names.length, 1);
  decodedAll(decoder, firstGroup);
  encoder.add(statement);
  encoder.add(server);
  const later = crossed(encoder);
  assert.deepEqual(later.names.map(([, names]) => names), [STATEMENT], 'only the list not sent before');
  assert.ok(later.fields.every((field) => field === undefined || ['string', 'number'].includes(typeof field)), 'plain values only');
  const spans = decodedAll(decoder, later);
  assert.deepEqual(spans.map((span) => span.name), ['SELECT users', 'GET /api/users/{id}']);
  assert.equal(spans[1]!.attributes['http.route'], '/api/users/{id}');
});

test('a take empties the encoder', () => {
  const encoder = new SpanEncoder();
  encoder.add(server);
  encoder.take();
  assert.equal(encoder.count, 0);
  assert.deepEqual(encoder.take(), { names: [], fields: [], count: 0 });
});

test('milliseconds become [seconds, nanoseconds], rounding up into the next second when it must', () => {
  assert.deepEqual(hrTimeOf(1_765_000_000_123.25), [1_765_000_000, 123_250_000]);
  assert.deepEqual(hrTimeOf(2.5), [0, 2_500_000]);
  assert.deepEqual(hrTimeOf(1999.9999999), [2, 0]);
});

const origin = { resource: { attributes: {} }, instrumentationScope: { name: 'user-service', version: '9.9.9' }, enums: { server: 1, client: 2, sampled: 1, unset: 0, error: 2 } } as unknown as SpanOrigin;

test("the SDK's span model: a server span's parent is the caller's (remote), a statement's is this service's", () => {
  const encoder = new SpanEncoder();
  encoder.add(server);
  encoder.add(statement);
  const [first, second] = decodedAll(new SpanDecoder(), crossed(encoder)).map((span) => readableSpan(span, origin));
  assert.equal(first!.kind, 1);
  assert.deepEqual(first!.spanContext(), { traceId: TRACE, spanId: '00f067aa0ba902b7', traceFlags: 1, isRemote: false });
  assert.equal(first!.parentSpanContext?.isRemote, true);
  assert.deepEqual(first!.status, { code: 2, message: '503' });
  assert.deepEqual(first!.duration, [0, 2_250_000]);
  assert.equal(second!.kind, 2);
  assert.equal(second!.parentSpanContext?.isRemote, false);
  assert.equal(second!.parentSpanContext?.spanId, '00f067aa0ba902b7');
  assert.deepEqual(second!.status, { code: 0 });
  assert.equal(second!.links.length, 2);
  assert.equal(second!.instrumentationScope.version, '9.9.9');
});
