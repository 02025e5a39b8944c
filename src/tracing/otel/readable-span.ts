import type { HrTime, SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { DecodedSpan } from './span-codec.js';

/** The API's enum values a span needs, passed in: the API package is loaded only when export is configured. */
export interface SpanEnums {
  server: number;
  client: number;
  sampled: number;
  unset: number;
  error: number;
}

/** What every span of this process shares. */
export interface SpanOrigin {
  resource: Resource;
  instrumentationScope: { name: string; version: string };
  enums: SpanEnums;
}

const NANOS_PER_MS = 1e6;
const NANOS_PER_SECOND = 1e9;

/** Milliseconds (since the epoch, or a duration) as the SDK's [seconds, nanoseconds]. */
export function hrTimeOf(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * NANOS_PER_MS);
  return nanos >= NANOS_PER_SECOND ? [seconds + 1, nanos - NANOS_PER_SECOND] : [seconds, nanos];
}

/**
 * The SDK's span model for a span that already ended on the request thread, made directly: its
 * ids, sampling decision and times were settled there, which the SDK's Tracer would decide again
 * (context, sampler, id generator).
 */
export function readableSpan(span: DecodedSpan, { resource, instrumentationScope, enums }: SpanOrigin): ReadableSpan {
  const context: SpanContext = { traceId: span.traceId, spanId: span.spanId, traceFlags: enums.sampled, isRemote: false };
  const parent: SpanContext | undefined =
    span.parentSpanId === undefined
      ? undefined
      : // A server span's parent is its caller's; every other span's is this service's own.
        { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: enums.sampled, isRemote: span.kind === 'server' };
  return {
    name: span.name,
    kind: span.kind === 'server' ? enums.server : enums.client,
    spanContext: () => context,
    parentSpanContext: parent,
    startTime: hrTimeOf(span.startMs),
    endTime: hrTimeOf(span.endMs),
    duration: hrTimeOf(Math.max(0, span.endMs - span.startMs)),
    status: span.error === undefined ? { code: enums.unset } : { code: enums.error, message: span.error },
    attributes: span.attributes,
    links: span.links.map((link) => ({ context: { traceId: link.traceId, spanId: link.spanId, traceFlags: enums.sampled, isRemote: false } })),
    events: [],
    ended: true,
    resource,
    instrumentationScope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
