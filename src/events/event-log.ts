import type { Database } from '../db/database.js';
import { decodeBatch, type BatchRow, type StoredEvent } from '../db/event-batches.js';
import { eventSql } from '../db/event-statements.js';
import { endpointSql } from '../db/webhook-endpoint-statements.js';

export type { EventType, StoredEvent } from '../db/event-batches.js';

/** How many batches (or older single events) one prune removes at most: small, so writers never wait long behind it. */
const PRUNE_BATCH = 500;
/** Attempts logged for pruned events removed per statement. */
const PRUNE_ATTEMPTS = 5000;

/**
 * The outbox as readers see it: events in id order (the order they became readable), looked up by
 * id, and pruned. Events are stored a batch per row (event_batches); those versions before this
 * one wrote, one per row in user_events, are read and pruned alike until none is left, so a reader
 * resumes across the upgrade by the ids it holds.
 */
export class EventLog {
  constructor(private readonly db: Database) {}

  /** Up to `limit` events after `id`, oldest first. */
  async after(id: number, limit: number): Promise<StoredEvent[]> {
    const [batches, legacy] = await Promise.all([
      this.db.read<BatchRow[]>(eventSql.batchesAfter, [id, limit]),
      this.db.read<StoredEvent[]>(eventSql.legacyAfter, [id, limit]),
    ]);
    const events = batches.flatMap((row) => decodeBatch(row, id));
    if (legacy.length > 0) {
      events.push(...legacy.map((event) => ({ ...event, id: Number(event.id) })));
      events.sort((a, b) => a.id - b.id);
    }
    return events.length > limit ? events.slice(0, limit) : events;
  }

  /** The events with these ids that are still kept, by id. */
  async byIds(ids: readonly number[]): Promise<Map<number, StoredEvent>> {
    const found = new Map<number, StoredEvent>();
    const wanted = [...new Set(ids)].sort((a, b) => a - b);
    const asked = new Set(wanted);
    // Each read returns the batches from the first wanted id on; the ids they cover are taken, and the next read starts after them.
    for (let i = 0; i < wanted.length; ) {
      const rows = await this.db.read<BatchRow[]>(eventSql.batchesFrom, [wanted[i]!, 16]);
      if (rows.length === 0) break;
      const through = Number(rows[rows.length - 1]!.last_id);
      for (const event of rows.flatMap((row) => decodeBatch(row))) if (asked.has(event.id)) found.set(event.id, event);
      while (i < wanted.length && wanted[i]! <= through) i++;
    }
    const missing = wanted.filter((id) => !found.has(id));
    if (missing.length > 0) {
      const legacy = await this.db.read<StoredEvent[]>(eventSql.legacyByIds(missing.length), missing);
      for (const event of legacy) found.set(Number(event.id), { ...event, id: Number(event.id) });
    }
    return found;
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
   * Removes up to one round of the oldest batches (and older single events) recorded more than
   * `retentionSeconds` ago that no webhook endpoint still needs, raising the pruned mark first (so
   * a reader is told 410 rather than shown a gap). Resolves with how many rows were removed: none
   * means none are left.
   */
  async pruneBatch(retentionSeconds: number): Promise<number> {
    const batches = await this.db.read<Array<{ seq: number | string; last_id: number | string }>>(eventSql.prunableBatches, [retentionSeconds, retentionSeconds, PRUNE_BATCH]);
    const legacy = await this.db.read<Array<{ id: number | string }>>(eventSql.prunableLegacy, [retentionSeconds, retentionSeconds, PRUNE_BATCH]);
    const through = Math.max(0, ...batches.map((row) => Number(row.last_id)), ...legacy.map((row) => Number(row.id)));
    if (through === 0) return 0;
    await this.db.write(eventSql.markPruned, [through]);
    if (batches.length > 0) await this.db.write(eventSql.deleteBatches(batches.length), batches.map((row) => row.seq));
    if (legacy.length > 0) await this.db.write(eventSql.deleteLegacy(legacy.length), legacy.map((row) => row.id));
    // The log of webhook attempts is kept as long as the events it tells of.
    while ((await this.db.write(endpointSql.pruneAttempts, [through, PRUNE_ATTEMPTS])).affectedRows === PRUNE_ATTEMPTS);
    return batches.length + legacy.length;
  }
}
