import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { childOf, continueTrace, parseTraceparent, traceparentOf } from '../../src/tracing/trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

describe('traceparent: a valid one is continued', () => {
  test('version 00, sampled -> its trace id, parent id and flag', () => {
    assert.deepEqual(parseTraceparent(`00-${TRACE}-${PARENT}-01`), { traceId: TRACE, spanId: PARENT, sampled: true });
  });
  test('flags 00 -> not sampled; other flag bits are ignored', () => {
    assert.equal(parseTraceparent(`00-${TRACE}-${PARENT}-00`)?.sampled, false);
    assert.equal(parseTraceparent(`00-${TRACE}-${PARENT}-03`)?.sampled, true);
  });
  test('a later version with more fields -> its first four fields (forward compatible)', () => {
    assert.equal(parseTraceparent(`cc-${TRACE}-${PARENT}-01-what-comes-later`)?.traceId, TRACE);
  });
  test('a continued span keeps the trace, names the caller as parent and gets a span id of its own', () => {
    const span = continueTrace(`00-${TRACE}-${PARENT}-01`, 'congo=t61rcWkgMzE');
    assert.equal(span.traceId, TRACE);
    assert.equal(span.parentSpanId, PARENT);
    assert.notEqual(span.spanId, PARENT);
    assert.equal(span.sampled, true);
    assert.equal(span.traceState, 'congo=t61rcWkgMzE');
    assert.equal(traceparentOf(span), `00-${TRACE}-${span.spanId}-01`);
  });
});

describe('traceparent: a malformed one starts a new trace, never an error', () => {
  const malformed: Array<[string, string]> = [
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['version 00 with a fifth field', `00-${TRACE}-${PARENT}-01-extra`],
    ['a short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['not hex', `00-${'g'.repeat(32)}-${PARENT}-01`],
    ['empty', ''],
  ];
  for (const [what, value] of malformed) {
    test(`${what} -> ignored`, () => {
      assert.equal(parseTraceparent(value), undefined);
      const span = continueTrace(value, 'congo=t61rcWkgMzE');
      assert.notEqual(span.traceId, TRACE);
      assert.equal(span.parentSpanId, undefined);
      assert.equal(span.traceState, undefined, 'tracestate goes only with a valid traceparent');
      assert.match(traceparentOf(span), TRACEPARENT);
    });
  }
  test('two values of the header (a list) -> ignored', () => {
    assert.equal(parseTraceparent([`00-${TRACE}-${PARENT}-01`, `00-${TRACE}-${PARENT}-01`]), undefined);
  });
});

describe('new traces and child spans', () => {
  test('without an exporter a new trace is not sampled; a caller\'s flag is kept', () => {
    assert.equal(continueTrace(undefined, undefined).sampled, false);
    assert.equal(continueTrace(`00-${TRACE}-${PARENT}-00`, undefined).sampled, false);
    assert.equal(continueTrace(`00-${TRACE}-${PARENT}-01`, undefined).sampled, true);
  });
  test('the sampler decides a new trace\'s flag and may override the caller\'s', () => {
    assert.equal(continueTrace(undefined, undefined, () => true).sampled, true);
    assert.equal(continueTrace(`00-${TRACE}-${PARENT}-01`, undefined, () => false).sampled, false);
  });
  test('ids are random and never repeat over many draws', () => {
    const traces = new Set<string>();
    const spans = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const span = continueTrace(undefined, undefined);
      traces.add(span.traceId);
      spans.add(span.spanId);
    }
    assert.equal(traces.size, 5000);
    assert.equal(spans.size, 5000);
  });
  test('a child span: same trace and flag, the parent named, a new id', () => {
    const parent = continueTrace(`00-${TRACE}-${PARENT}-01`, undefined);
    const child = childOf(parent);
    assert.equal(child.traceId, TRACE);
    assert.equal(child.parentSpanId, parent.spanId);
    assert.notEqual(child.spanId, parent.spanId);
    assert.equal(child.sampled, true);
  });
});
