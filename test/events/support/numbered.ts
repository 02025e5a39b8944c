import type { StoredEvent } from '../../../src/events/event-log.js';
import type { TestDatabase } from '../../helpers/database.js';
import { pollUntil, waitUntil } from '../../helpers/poll-until.js';

/**
 * The outbox as tests read it. Events are written a batch per row of event_batches (a JSON array)
 * with their change, and given ids right after it commits (src/events/event-numbering.ts): what a
 * test reads by id, it reads once that has happened. Rows of user_events (written one event each by
 * earlier versions, or by a test) are read too.
 */

type Queryable = Pick<TestDatabase, 'query'>;

/** An event as written, numbered or not: `seq` and `n` order events as written, `id` is null until numbered. */
export interface WrittenEvent extends Omit<StoredEvent, 'id'> {
  seq: number;
  n: number;
  id: number | null;
}

/** Every event of event_batches, one row each, in the order written. */
export const EXPANDED_BATCHES =
  'SELECT b.seq, j.n, IF(b.first_id IS NULL, NULL, b.first_id + j.n - 1) AS id, j.type, j.user_id, j.name, j.email, ' +
  "j.created_at, j.request_id, DATE_FORMAT(b.occurred_at, '%Y-%m-%d %H:%i:%s.%f') AS occurred_at " +
  'FROM event_batches b, JSON_TABLE(b.events, \'$[*]\' COLUMNS (n FOR ORDINALITY, type VARCHAR(20) PATH \'$[0]\', ' +
  "user_id INT PATH '$[1]', name TEXT PATH '$[2]', email TEXT PATH '$[3]', created_at VARCHAR(30) PATH '$[4]', request_id VARCHAR(200) PATH '$[5]')) j";

/** Every event written, in the order written (those of user_events first, by id). */
export async function writtenEvents(db: Queryable): Promise<WrittenEvent[]> {
  // Times as the service reads them: UTC.
  await db.query("SET time_zone = '+00:00'");
  const legacy = await db.query<StoredEvent[]>(
    "SELECT id, type, user_id, name, email, created_at, request_id, DATE_FORMAT(occurred_at, '%Y-%m-%d %H:%i:%s.%f') AS occurred_at FROM user_events ORDER BY id",
  );
  const batched = await db.query<WrittenEvent[]>(`${EXPANDED_BATCHES} ORDER BY b.seq, j.n`);
  return [...legacy.map((event) => ({ ...event, seq: 0, n: 0, id: Number(event.id) })), ...batched.map((event) => ({ ...event, id: event.id === null ? null : Number(event.id) }))];
}

/** Every event, once all are numbered, in id order. */
export async function numberedEvents(db: Queryable): Promise<StoredEvent[]> {
  await allNumbered(db);
  return (await writtenEvents(db)).map(({ seq: _seq, n: _n, ...event }) => ({ ...event, id: event.id! })).sort((a, b) => a.id - b.id);
}

/** Resolves once every event written so far has its id. */
export async function allNumbered(db: Queryable): Promise<void> {
  await waitUntil('every event to be numbered', async () => {
    const [row] = await db.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM event_batches WHERE last_id IS NULL');
    return Number(row!.n) === 0;
  });
}

/** The id of the event the request with this X-Request-Id recorded, once it has one. */
export function eventIdOf(db: Queryable, requestId: string): Promise<number> {
  return pollUntil(`the event of ${requestId} to be numbered`, async () => {
    const [row] = await db.query<Array<{ id: number | null }>>(`SELECT id FROM (${EXPANDED_BATCHES}) e WHERE request_id = ?`, [requestId]);
    return row?.id === null || row?.id === undefined ? undefined : Number(row.id);
  });
}
