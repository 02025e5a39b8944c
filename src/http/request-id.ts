import { randomUUID } from 'node:crypto';

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
