import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import { endDiscarding } from './discard-body.js';
import { freshRequestId, REQUEST_ID_HEADER } from './request-id.js';
import { jsonHeaderLines } from './respond.js';
import { continueTrace, TRACEPARENT_HEADER, traceparentOf } from '../tracing/trace-context.js';

const malformed = new HttpError(400, messages.malformedRequest);

const byCode: Record<string, HttpError> = {
  HPE_HEADER_OVERFLOW: new HttpError(431, messages.headersTooLarge),
  ERR_HTTP_REQUEST_TIMEOUT: new HttpError(408, messages.requestTimeout),
  HPE_HEADERS_TIMEOUT: new HttpError(408, messages.requestTimeout),
};

/**
 * A request Node could not parse or that took too long: its JSON answer, written straight to the
 * socket, unless the socket already carries a 413 whose body was being dropped (discard-body.ts).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (endDiscarding(socket)) return;
  writeErrorToSocket(socket, byCode[error.code ?? ''] ?? malformed);
}

/**
 * A complete error response written to a socket no ServerResponse owns (a request Node refused
 * before dispatch, or a CONNECT); then the socket closes.
 */
export function writeErrorToSocket(socket: Socket, answer: HttpError): void {
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
      jsonHeaderLines +
      `Content-Length: ${Buffer.byteLength(answer.body)}\r\n` +
      `${REQUEST_ID_HEADER}: ${freshRequestId()}\r\n` +
      `${TRACEPARENT_HEADER}: ${traceparentOf(continueTrace(undefined, undefined))}\r\n` +
      'Connection: close\r\n\r\n' +
      answer.body,
  );
}
