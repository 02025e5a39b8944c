import type { ServerResponse } from 'node:http';
import { randomBytesPool, takeRandomBytes } from '../ids/random-bytes.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** 1-200 visible ASCII characters: no spaces, no controls, nothing a log line or header could trip over. */
const CLIENT_ID = /^[\x21-\x7e]{1,200}$/;

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** A new random id: a version 4 UUID (122 random bits, not guessable from earlier ones). */
export function freshRequestId(): string {
  const b = randomBytesPool;
  const i = takeRandomBytes(16);
  return (
    HEX[b[i]!]! + HEX[b[i + 1]!] + HEX[b[i + 2]!] + HEX[b[i + 3]!] + '-' +
    HEX[b[i + 4]!] + HEX[b[i + 5]!] + '-' +
    HEX[(b[i + 6]! & 0x0f) | 0x40] + HEX[b[i + 7]!] + '-' +
    HEX[(b[i + 8]! & 0x3f) | 0x80] + HEX[b[i + 9]!] + '-' +
    HEX[b[i + 10]!] + HEX[b[i + 11]!] + HEX[b[i + 12]!] + HEX[b[i + 13]!] + HEX[b[i + 14]!] + HEX[b[i + 15]!]
  );
}

/** The client's own `X-Request-Id` when it is acceptable, else a fresh one. */
export function requestIdFor(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && CLIENT_ID.test(sent) ? sent : freshRequestId();
}

/** A response that knows the id of its request; set by the dispatcher, fresh when no request reached it. */
interface IdentifiedResponse extends ServerResponse {
  requestId?: string;
}

export function assignRequestId(res: ServerResponse, id: string): void {
  (res as IdentifiedResponse).requestId = id;
}

/** The id the response carries in X-Request-Id. */
export function requestIdOf(res: ServerResponse): string {
  return ((res as IdentifiedResponse).requestId ??= freshRequestId());
}
