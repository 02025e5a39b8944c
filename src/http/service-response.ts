import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import { TRACEPARENT_HEADER, type SpanContext } from '../tracing/trace-context.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { traceparentHeaderOf } from './response-trace.js';

/**
 * Responses that carry `X-Request-Id` and `traceparent` whichever path writes their head, and ask the client to
 * close the connection once `closing()` is true, decided as the head is written: requests already
 * running when draining starts are covered too, so a keep-alive client cannot hold shutdown up to
 * the drain limit. No registry of running requests is kept (one Set entry per request kept every
 * response alive long enough to reach V8's old generation, which made each young-generation
 * collection several times slower).
 */
export function serviceResponse(closing: () => boolean): typeof ServerResponse<IncomingMessage> {
  return class ServiceResponse extends ServerResponse {
    /** Declared here so every response has the same shape from the start (see request-id.ts). */
    requestId?: string;
    trace?: SpanContext;

    override writeHead(
      statusCode: number,
      reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
      headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
    ): this {
      if (closing()) this.setHeader('Connection', 'close');
      const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
      const given = reason === undefined ? reasonOrHeaders : headers;
      // Flat header arrays stay flat (setHeader would switch Node to its slower path); those of
      // respond.ts already end with the id and the trace.
      if (Array.isArray(given)) {
        const named = given[given.length - 2] === TRACEPARENT_HEADER;
        return super.writeHead(statusCode, reason, named ? given : given.concat(REQUEST_ID_HEADER, requestIdOf(this), TRACEPARENT_HEADER, traceparentHeaderOf(this)));
      }
      this.setHeader(REQUEST_ID_HEADER, requestIdOf(this));
      this.setHeader(TRACEPARENT_HEADER, traceparentHeaderOf(this));
      return super.writeHead(statusCode, reason, given as OutgoingHttpHeaders | undefined);
    }
  };
}
