import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SpanContext } from '../tracing/trace-context.js';
import type { Params } from './router.js';

/** What a handler gets: the URL is split once by the dispatcher and never parsed again. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  /** The raw query string, without `?`; empty when there is none. */
  query: string;
  params: Params;
  /** The `X-Request-Id` this response carries; error log lines of the request name it too. */
  requestId: string;
  /** The client's address (the last X-Forwarded-For hop with TRUST_PROXY=1), read once per request. */
  client: string;
  /** This service's span for the request, named in its `traceparent` header. */
  trace: SpanContext;
}

export type Handler = (ctx: RequestContext) => Promise<void> | void;
