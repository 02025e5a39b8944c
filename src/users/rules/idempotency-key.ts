import { createHash } from 'node:crypto';
import { HttpError } from '../../errors/http-error.js';
import { messages } from '../../errors/messages.js';

/** Visible ASCII, 1-255 characters: a UUID, or any token a client makes up. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The Idempotency-Key of a request, if it has one; a malformed one (empty, too long, not visible
 * ASCII) is refused. The IETF draft sends the key as a structured-field string ("…"), Stripe's
 * clients bare: both are accepted, and name the same key.
 */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new HttpError(400, messages.invalidIdempotencyKey);
  const key = header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header;
  if (!KEY.test(key)) throw new HttpError(400, messages.invalidIdempotencyKey);
  return key;
}

/** What a key's requests must share to be the same request: the fields stored, hashed (SHA-256). */
export function requestHash(name: string, email: string): Buffer {
  return createHash('sha256').update(JSON.stringify([name, email])).digest();
}
