import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import { refusedKey } from './json-keys.js';

export const MAX_BODY_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Headers that make the client stop sending: the connection ends once an oversized body is refused. */
const CLOSE = { Connection: 'close' } as const;

/** Node's own test of the header (its `continueExpression`). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * Reads a JSON object body: checks the media type, enforces the size limit, decodes strict UTF-8.
 * A client that sent `Expect: 100-continue` is told to go on only here (server.ts does not answer
 * it up front), once the body is wanted and its declared length is within the limit: a request
 * refused before, 413 included, never has its body invited.
 */
export async function readJsonObject(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown>> {
  if (!isJsonMediaType(req.headers['content-type'])) {
    throw new HttpError(415, messages.unsupportedMediaType);
  }
  const awaitingContinue = req.httpVersion === '1.1' && CONTINUE.test(req.headers.expect ?? '');
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) {
    throw new BodyTooLargeError(!awaitingContinue);
  }
  if (awaitingContinue) res.writeContinue();
  const raw = await readLimited(req, MAX_BODY_BYTES);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new HttpError(400, messages.bodyNotUtf8);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, messages.invalidJson);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, messages.bodyNotObject);
  }
  const refused = refusedKey(text);
  if (refused) throw new HttpError(400, refused === 'duplicate' ? messages.duplicateKey : messages.forbiddenKey);
  return value as Record<string, unknown>;
}

/** `application/json` or any `+json` type; a charset, when given, must be UTF-8. */
export function isJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type = '', ...params] = header.toLowerCase().split(';');
  const essence = type.trim();
  if (essence !== 'application/json' && !/^application\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence)) return false;
  for (const param of params) {
    const [name = '', value = ''] = param.split('=');
    if (name.trim() === 'charset' && !/^"?utf-?8"?$/.test(value.trim())) return false;
  }
  return true;
}

function readLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(new BodyTooLargeError(true));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      if (req.complete) return;
      cleanup();
      reject(new ClientGoneError());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * A body over the limit, answered 413 and the connection closed. `stillSending` when the client may
 * be sending the rest: the answer then ends only once that is read and dropped (discard-body.ts).
 */
export class BodyTooLargeError extends HttpError {
  constructor(readonly stillSending: boolean) {
    super(413, messages.bodyTooLarge, CLOSE);
    this.name = 'BodyTooLargeError';
  }
}

/** The client went away before sending its whole body: there is nobody to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('client closed the connection before the body was complete');
    this.name = 'ClientGoneError';
  }
}
