import type { ServerResponse } from 'node:http';
import { ConflictError } from '../errors/conflict-error.js';
import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import { causeOf, StorageError } from '../errors/storage-error.js';
import type { Logger, LogFields } from '../log/logger.js';
import { BodyTooLargeError, ClientGoneError } from './body.js';
import { endAfterDiscardingBody } from './discard-body.js';
import { sendJson, sendText, writeJsonUnended } from './respond.js';

const busy = new HttpError(503, messages.busy, { 'Retry-After': '1' });
const storageFailed = new HttpError(500, messages.storage);
const internal = new HttpError(500, messages.internal);

/**
 * What the client is told of any thrown value: a refusal as it is; a conflict with the stored data
 * 409 with its message (the client's doing: only the access line records it); a storage failure by
 * its kind (busy: 503 and a retry hint; otherwise 500); anything else a bare 500. The cause of a
 * failure goes to the log, never to the client.
 */
export function toHttpError(error: unknown, logger: Logger, fields: LogFields): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof ConflictError) return new HttpError(409, error.message);
  if (error instanceof StorageError && error.kind === 'busy') {
    logger.warn('database queue full', fields);
    return busy;
  }
  logger.error('request failed', causeOf(error), fields);
  return error instanceof StorageError ? storageFailed : internal;
}

/**
 * The one place a request's error becomes its response. A client that went away gets nothing; a
 * response already started can only be cut short (Node would otherwise half-write a second one); a
 * body refused as too large while it is still arriving is answered at once, and the rest is read
 * and dropped before the connection closes, so that its sender reads the 413 instead of a reset.
 */
export function sendError(res: ServerResponse, error: unknown, logger: Logger, fields: LogFields): void {
  if (error instanceof ClientGoneError) {
    res.destroy();
    return;
  }
  if (res.headersSent) {
    logger.error('response failed after it started', error, fields);
    res.destroy();
    return;
  }
  if (error instanceof BodyTooLargeError && error.stillSending) {
    writeJsonUnended(res, error.status, error.body, error.headers);
    endAfterDiscardingBody(res.req, res);
    return;
  }
  const answer = toHttpError(error, logger, fields);
  if (answer.contentType === 'text') sendText(res, answer.status, answer.body, answer.headers);
  else sendJson(res, answer.status, answer.body, answer.headers);
}
