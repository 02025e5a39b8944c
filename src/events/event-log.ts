import type { Database } from '../db/database.js';
import { eventSql } from '../db/event-statements.js';

export type EventType = 'user.created' | 'user.updated' | 'user.deleted';

/** A row of user_events as mysql2 returns it (dateStrings: times are `YYYY-MM-DD HH:MM:SS.ffffff` in UTC). */
export interface StoredEvent {
  id: number;
  type: EventType;
  user_id: number;
  /** Null for a deletion. */
  name: string | null;
  email: string | null;
  created_at: string | null;
  request_id: string | null;
  occurred_at: string;
}

/** How many events one prune removes at most: small batches, so writers never wait long behind it. */
const PRUNE_BATCH = 500;

/** The outbox as readers see it: events in id order (which is commit order), and their pruning. */
export class EventLog {
  constructor(private readonly db: Database) {}

  /** Up to `limit` events after `id`, oldest first. */
  after(id: number, limit: number): Promise<StoredEvent[]> {
    return this.db.read<StoredEvent[]>(eventSql.eventsAfter, [id, limit]);
  }

  /** The last id handed out: 0 before the first event. */
  async lastId(): Promise<number> {
    const [row] = await this.db.read<Array<{ last_id: number | string }>>(eventSql.lastId, []);
    return row ? Number(row.last_id) : 0;
  }

  /** The last id handed out and the greatest pruned, in one read. */
  async marks(): Promise<{ lastId: number; prunedThrough: number }> {
    const [row] = await this.db.read<Array<{ last_id: number | string; pruned_through: number | string }>>(eventSql.marks, []);
    return { lastId: Number(row?.last_id ?? 0), prunedThrough: Number(row?.pruned_through ?? 0) };
  }

  /** The greatest id pruned (0 when none was): a reader resuming before it has missed events. */
  async prunedThrough(): Promise<number> {
    const [row] = await this.db.read<Array<{ last_id: number | string }>>(eventSql.prunedThrough, []);
    return row ? Number(row.last_id) : 0;
  }

  /**
   * Removes up to one batch of the oldest events recorded more than `retentionSeconds` ago that no
   * webhook endpoint still needs, raising the pruned mark first (so a reader is told 410 rather than
   * shown a gap). Resolves with how many were removed: fewer than a batch means none are left.
   */
  async pruneBatch(retentionSeconds: number): Promise<number> {
    const rows = await this.db.read<Array<{ id: number | string }>>(eventSql.prunable, [retentionSeconds, retentionSeconds, PRUNE_BATCH]);
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => Number(row.id));
    await this.db.write(eventSql.markPruned, [ids[ids.length - 1]]);
    await this.db.write(eventSql.deleteEvents(ids.length), ids);
    return ids.length;
  }
}
