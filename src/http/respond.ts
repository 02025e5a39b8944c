import type { ServerResponse } from 'node:http';
import { EXPOSED_HEADERS } from './cors.js';
import { TRACEPARENT_HEADER } from '../tracing/trace-context.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { traceparentHeaderOf } from './response-trace.js';

// Built once: every API response carries the same fixed headers, passed to writeHead as one flat
// array (with the request's id and trace last, so the response need not copy it again to add it) so Node
// stores them without a setHeader call (and its validation) per header.
const jsonHeaders: readonly string[] = [
  'Content-Type', 'application/json; charset=utf-8',
  'Access-Control-Allow-Origin', '*',
  'Access-Control-Expose-Headers', EXPOSED_HEADERS,
  'X-Content-Type-Options', 'nosniff',
  'Cache-Control', 'no-store',
];

const textHeaders: readonly string[] = ['Content-Type', 'text/plain; charset=utf-8', ...jsonHeaders.slice(2)];

/** The same fixed headers as lines of a raw HTTP head, for answers written straight to a socket. */
export const jsonHeaderLines = jsonHeaders
  .map((item, i) => (i % 2 === 0 ? `${item}: ` : `${item}\r\n`))
  .join('');

/** Starts a JSON response whose length is not known yet (a streamed list). */
export function writeJsonHead(res: ServerResponse, status: number, extraHeaders?: Readonly<Record<string, string>>): void {
  const headers = jsonHeaders.concat(REQUEST_ID_HEADER, requestIdOf(res), TRACEPARENT_HEADER, traceparentHeaderOf(res));
  if (extraHeaders) for (const name in extraHeaders) headers.push(name, extraHeaders[name]!);
  res.writeHead(status, headers);
}

/** Sends an already serialised JSON body; serialising first means a failure there can still become a clean 500. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  extraHeaders?: Readonly<Record<string, string>>,
): void {
  send(res, status, jsonHeaders, body, extraHeaders);
}

// A 304 repeats what a 200 would have said about caching and cross-origin reading, and has no body.
const notModifiedHeaders = jsonHeaders.slice(2);

/** 304 Not Modified: the client's copy, named by its ETag, is current. */
export function sendNotModified(res: ServerResponse, etag: string): void {
  res.writeHead(304, notModifiedHeaders.concat('ETag', etag, REQUEST_ID_HEADER, requestIdOf(res), TRACEPARENT_HEADER, traceparentHeaderOf(res)));
  res.end();
}

/** 204 No Content: done, nothing to say (a removal). */
export function sendNoContent(res: ServerResponse): void {
  res.writeHead(204, notModifiedHeaders.concat(REQUEST_ID_HEADER, requestIdOf(res), TRACEPARENT_HEADER, traceparentHeaderOf(res)));
  res.end();
}

/** A plain-text body, for the one answer of an older variant that is not JSON. */
export function sendText(res: ServerResponse, status: number, body: string, extraHeaders?: Readonly<Record<string, string>>): void {
  send(res, status, textHeaders, body, extraHeaders);
}

/**
 * Writes a whole JSON response, body included, but leaves it open: the caller ends it later
 * (discard-body.ts, once the rest of a refused request body is dropped).
 */
export function writeJsonUnended(
  res: ServerResponse,
  status: number,
  body: string,
  extraHeaders?: Readonly<Record<string, string>>,
): void {
  res.writeHead(status, headersFor(res, jsonHeaders, body, extraHeaders));
  res.write(body);
}

function send(
  res: ServerResponse,
  status: number,
  fixed: readonly string[],
  body: string | Buffer,
  extraHeaders: Readonly<Record<string, string>> | undefined,
): void {
  res.writeHead(status, headersFor(res, fixed, body, extraHeaders));
  res.end(body);
}

function headersFor(
  res: ServerResponse,
  fixed: readonly string[],
  body: string | Buffer,
  extraHeaders: Readonly<Record<string, string>> | undefined,
): string[] {
  const headers = fixed.concat('Content-Length', String(Buffer.byteLength(body)));
  if (extraHeaders) for (const name in extraHeaders) headers.push(name, extraHeaders[name]!);
  headers.push(REQUEST_ID_HEADER, requestIdOf(res), TRACEPARENT_HEADER, traceparentHeaderOf(res));
  return headers;
}
