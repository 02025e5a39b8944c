import { userJson } from '../users/rules/user.js';
import type { StoredEvent } from './event-log.js';

/**
 * An event as webhooks and the stream carry it (the Standard Webhooks payload shape):
 * `{"id":42,"type":"user.updated","timestamp":"2026-11-25T01:02:03.456Z","request_id":"…","data":{…}}`,
 * `data` being the user as `GET /api/users/{id}` shows it after the change, or `{"id":…}` for a deletion.
 */
export function eventJson(event: StoredEvent): string {
  const data =
    event.type === 'user.deleted'
      ? `{"id":${event.user_id}}`
      : userJson({ id: event.user_id, name: event.name ?? '', email: event.email ?? '', created_at: event.created_at });
  return `{"id":${event.id},"type":"${event.type}","timestamp":"${isoTime(event.occurred_at)}","request_id":${JSON.stringify(event.request_id)},"data":${data}}`;
}

/** `YYYY-MM-DD HH:MM:SS.ffffff` (UTC) as ISO 8601 with milliseconds. */
export function isoTime(mysqlUtc: string): string {
  const time = withMilliseconds(mysqlUtc);
  return `${time.slice(0, 10)}T${time.slice(11)}Z`;
}

/**
 * `YYYY-MM-DD HH:MM:SS.fff`, from a TIMESTAMP(3) or (6) as mysql2 gives it with dateStrings: the
 * server's binary protocol leaves the fraction out when it is zero, one time in a thousand.
 */
export function withMilliseconds(mysqlUtc: string): string {
  return `${mysqlUtc.slice(0, 19)}.${mysqlUtc.slice(20, 23).padEnd(3, '0')}`;
}
