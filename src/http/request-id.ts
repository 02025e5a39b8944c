import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** 1-200 visible ASCII characters: no spaces, no controls, nothing a log line or header could trip over. */
const CLIENT_ID = /^[\x21-\x7e]{1,200}$/;

/** A new random id (a version 4 UUID: 122 random bits, not guessable from earlier ones). */
export function freshRequestId(): string {
  return randomUUID();
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
