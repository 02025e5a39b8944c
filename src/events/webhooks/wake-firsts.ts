import { padded } from '../../db/batcher.js';
import type { Database } from '../../db/database.js';
import { webhookSql } from '../../db/webhook-statements.js';

/** Waiting deliveries made due per statement. */
const CHUNK = 500;

/**
 * Deliveries queued to wait behind their user's earlier ones (moved from another endpoint, or
 * recovered): each user's first, with nothing of that user pending before it, is made due now;
 * the rest follow it as usual.
 */
export async function wakeFirsts(db: Database, endpoint: string): Promise<void> {
  for (;;) {
    const rows = await db.read<Array<{ event_id: number | string }>>(webhookSql.stranded, [endpoint, CHUNK]);
    if (rows.length === 0) return;
    const ids = padded(rows.map((row) => Number(row.event_id)));
    await db.write(webhookSql.wake(ids.length), [endpoint, ...ids]);
    if (rows.length < CHUNK) return;
  }
}
