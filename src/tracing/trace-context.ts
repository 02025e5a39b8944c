import { randomBytesPool, takeRandomBytes } from '../ids/random-bytes.js';

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the identity of one span, as a
 * `traceparent` header carries it. Made for every request, whether spans are exported or not.
 */
export interface SpanContext {
  /** 32 lowercase hex digits, never all zeros. */
  readonly traceId: string;
  /** This span's id: 16 lowercase hex digits, never all zeros. */
  readonly spanId: string;
  /** The caller's span, when the trace was continued from a `traceparent`. */
  readonly parentSpanId: string | undefined;
  /** Whether this span is recorded (the sampled flag passed on). */
  readonly sampled: boolean;
  /** The caller's `tracestate`, passed on unchanged with a continued trace. */
  readonly traceState: string | undefined;
}

export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';

/** A `traceparent` as the spec writes it: version, trace id, parent id, flags. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** The spec allows 32 list members of at most 256 characters; longer values are dropped, not cut. */
const MAX_TRACESTATE_LENGTH = 512;
const TRACESTATE = /^[\x20-\x7e]*$/;

/** The parent a valid incoming `traceparent` names, or undefined: a malformed one starts a new trace. */
export function parseTraceparent(value: string | string[] | undefined): { traceId: string; spanId: string; sampled: boolean } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  // Version 00 has exactly these four fields; a later version may add more after a dash.
  if (version === '00' && rest !== undefined) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/**
 * This service's span for a request: a child of the caller's span when `traceparent` is valid,
 * else the root of a new trace. `decideSampled` decides a new trace's flag; a continued trace
 * keeps the caller's unless `decideSampled` is given the parent's flag and says otherwise.
 */
export function continueTrace(
  traceparent: string | string[] | undefined,
  tracestate: string | string[] | undefined,
  decideSampled: (traceId: string, parentSampled: boolean | undefined) => boolean = noExport,
): SpanContext {
  const parent = parseTraceparent(traceparent);
  if (parent === undefined) return newRoot(decideSampled);
  const state = typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE_LENGTH && TRACESTATE.test(tracestate) ? tracestate : undefined;
  return { traceId: parent.traceId, spanId: freshSpanId(), parentSpanId: parent.spanId, sampled: decideSampled(parent.traceId, parent.sampled), traceState: state || undefined };
}

/** The first span of a new trace: both ids cut from one string of 48 random hex digits (one encoder call a request, not two). */
function newRoot(decideSampled: (traceId: string, parentSampled: boolean | undefined) => boolean): SpanContext {
  const ids = hex(24);
  const traceId = ids.slice(0, 32);
  const spanId = ids.slice(32);
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return newRoot(decideSampled);
  return { traceId, spanId, parentSpanId: undefined, sampled: decideSampled(traceId, undefined), traceState: undefined };
}

/** Without an exporter nothing is recorded here: a continued trace keeps its caller's flag, a new one is not sampled. */
function noExport(_traceId: string, parentSampled: boolean | undefined): boolean {
  return parentSampled ?? false;
}

/** A new span of the same trace, a child of `parent` (a database statement, a webhook attempt). */
export function childOf(parent: SpanContext): SpanContext {
  return { traceId: parent.traceId, spanId: freshSpanId(), parentSpanId: parent.spanId, sampled: parent.sampled, traceState: parent.traceState };
}

/**
 * A span for work done later on behalf of a request (a webhook attempt): a child of the request's
 * span that `traceparent` names, or the root of a new trace when there is none.
 */
export function attemptSpanOf(traceparent: string | null | undefined): SpanContext {
  const parent = parseTraceparent(traceparent ?? undefined);
  if (parent === undefined) return { traceId: freshTraceId(), spanId: freshSpanId(), parentSpanId: undefined, sampled: false, traceState: undefined };
  return { traceId: parent.traceId, spanId: freshSpanId(), parentSpanId: parent.spanId, sampled: parent.sampled, traceState: undefined };
}

/** The `traceparent` header naming this span. */
export function traceparentOf(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${span.sampled ? '01' : '00'}`;
}

/** `bytes` random bytes as lowercase hex, written by Buffer's native encoder (a flat string, no concatenation). */
function hex(bytes: number): string {
  const at = takeRandomBytes(bytes);
  return randomBytesPool.toString('hex', at, at + bytes);
}

export function freshTraceId(): string {
  const id = hex(16);
  return id === ZERO_TRACE ? freshTraceId() : id;
}

export function freshSpanId(): string {
  const id = hex(8);
  return id === ZERO_SPAN ? freshSpanId() : id;
}
