import type { TestDatabase } from '../../helpers/database.js';
import { pollUntil, waitUntil } from '../../helpers/poll-until.js';

/**
 * Events are written with their change and given an id right after it commits (src/events/
 * event-numbering.ts): what a test reads by id, it reads once that has happened.
 */

type Queryable = Pick<TestDatabase, 'query'>;

/** Resolves once every event written so far has its id. */
export async function allNumbered(db: Queryable): Promise<void> {
  await waitUntil('every event to be numbered', async () => {
    const [row] = await db.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM user_events WHERE id IS NULL');
    return Number(row!.n) === 0;
  });
}

/** The id of the event the request with this X-Request-Id recorded, once it has one. */
export function eventIdOf(db: Queryable, requestId: string): Promise<number> {
  return pollUntil(`the event of ${requestId} to be numbered`, async () => {
    const [row] = await db.query<Array<{ id: number | null }>>('SELECT id FROM user_events WHERE request_id = ?', [requestId]);
    return row?.id ?? undefined;
  });
}
