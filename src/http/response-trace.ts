import type { ServerResponse } from 'node:http';
import { continueTrace, traceparentOf, type SpanContext } from '../tracing/trace-context.js';

/** A response that knows its request's span; set by the dispatcher, a new trace when no request reached it. */
interface TracedResponse extends ServerResponse {
  trace?: SpanContext;
}

export function assignTrace(res: ServerResponse, span: SpanContext): void {
  (res as TracedResponse).trace = span;
}

/** The span this response answers for: the one its `traceparent` header names. */
export function traceOf(res: ServerResponse): SpanContext {
  return ((res as TracedResponse).trace ??= continueTrace(undefined, undefined));
}

/** The `traceparent` header value of this response. */
export function traceparentHeaderOf(res: ServerResponse): string {
  return traceparentOf(traceOf(res));
}
