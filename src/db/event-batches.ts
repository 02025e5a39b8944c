/**
 * How a batch of change events is stored in event_batches.events: a JSON array with one array per
 * event, `[type, user id, name, email, created_at, request id, traceparent]`, in the order of the changes; the
 * events' ids run from the row's first_id on.
 */

export type EventType = 'user.created' | 'user.updated' | 'user.deleted';

/** A change to record: the user as it left it (name, email and creation time null for a deletion). */
export interface RecordedChange {
  type: EventType;
  userId: number;
  name: string | null;
  email: string | null;
  /** As the users table gives it (mysql2's dateStrings: `YYYY-MM-DD HH:MM:SS`, UTC). */
  createdAt: string | null;
  requestId: string | null;
  /** The `traceparent` of the request's span: a webhook attempt joins its trace. */
  traceparent: string | null;
}

/** An event as readers get it (times as mysql2 gives them with dateStrings: `YYYY-MM-DD HH:MM:SS[.ffffff]`, UTC). */
export interface StoredEvent {
  id: number;
  type: EventType;
  user_id: number;
  /** Null for a deletion. */
  name: string | null;
  email: string | null;
  created_at: string | null;
  request_id: string | null;
  /** When its change was written (the batch's time, the database's clock). */
  occurred_at: string;
  /** The `traceparent` of the request that made the change; not part of the event's JSON. */
  traceparent?: string | null;
}

/** A numbered row of event_batches as mysql2 returns it. */
export interface BatchRow {
  first_id: number | string;
  last_id: number | string;
  occurred_at: string;
  events: string;
}

/** The seventh element, the traceparent, is absent from batches written before it was recorded. */
type Encoded = [EventType, number, string | null, string | null, string | null, string | null, (string | null)?];

export function encodeBatch(changes: readonly RecordedChange[]): string {
  return JSON.stringify(changes.map((change): Encoded => [change.type, change.userId, change.name, change.email, change.createdAt, change.requestId, change.traceparent]));
}

/** The batch's events, with their ids, from the first after `after` on. */
export function decodeBatch(row: BatchRow, after = 0): StoredEvent[] {
  const first = Number(row.first_id);
  const encoded = JSON.parse(row.events) as Encoded[];
  const events: StoredEvent[] = [];
  for (let i = Math.max(0, after - first + 1); i < encoded.length; i++) {
    const [type, userId, name, email, createdAt, requestId, traceparent] = encoded[i]!;
    events.push({ id: first + i, type, user_id: userId, name, email, created_at: createdAt, request_id: requestId, occurred_at: row.occurred_at, traceparent });
  }
  return events;
}
