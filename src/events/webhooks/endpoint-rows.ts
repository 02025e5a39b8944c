import type { ResultSetHeader } from 'mysql2';
import { padded } from '../../db/batcher.js';
import type { Database, StatementRunner } from '../../db/database.js';
import { webhookSql } from '../../db/webhook-statements.js';
import type { EventLog, StoredEvent } from '../event-log.js';

/** A delivery to queue: its event, the attempts made (one if it just failed), and the pause before the next. */
export interface Queued {
  eventId: number;
  userId: number;
  attempts: number;
  error: string | null;
  /** Seconds until the next attempt when it is its user's first pending delivery (0: now). */
  delaySeconds: number;
}

/** A pending delivery whose next attempt is due, with its event (undefined once pruned). */
export interface Due {
  eventId: number;
  userId: number;
  attempts: number;
  /** Seconds since it was queued, by the database's clock. */
  ageSeconds: number;
  event: StoredEvent | undefined;
}

interface DueRow {
  id: number | string;
  user_id: number;
  attempts: number;
  age_us: number | string;
}

/** Largest rows per queueing statement: a commit's rows go out in chunks of powers of two, so few statements are prepared. */
const QUEUE_CHUNK = 128;

/**
 * One endpoint's rows (webhook_endpoints, webhook_deliveries), as its lease holder reads and
 * changes them. `endpoint` is the SHA-256 of the URL.
 */
export class EndpointRows {
  constructor(
    private readonly db: Database,
    private readonly log: EventLog,
    readonly endpoint: string,
    private readonly url: string,
  ) {}

  /** The endpoint's mark, the row made first if this endpoint is new (starting at the last event: no history). */
  async open(): Promise<number> {
    await this.db.write(webhookSql.addEndpoint, [this.endpoint, this.url]);
    const [row] = await this.db.read<Array<{ queued_through: number | string }>>(webhookSql.queuedThrough, [this.endpoint]);
    if (!row) throw new Error('webhook endpoint row missing after it was added');
    return Number(row.queued_through);
  }

  /** Which of these users have a delivery pending to this endpoint. */
  async usersWithPending(userIds: readonly number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.db.read<Array<{ user_id: number }>>(webhookSql.usersWithPending(padded(userIds).length), [this.endpoint, ...padded(userIds)]);
    return new Set(rows.map((row) => row.user_id));
  }

  /**
   * Moves the mark from `from` to `through` and queues `queued` (events in between, in id order),
   * in one transaction. A user's first queued row gets its own pause only when no earlier delivery
   * of that user is pending; every other row waits its turn. False (nothing changed) when the
   * mark is no longer `from`: another process has handled these events.
   */
  commit(from: number, through: number, queued: readonly Queued[]): Promise<boolean> {
    return this.db.transaction(
      async (run) => {
        const moved = await run(webhookSql.advance, [through, this.endpoint, from]);
        if (moved.affectedRows !== 1) return false;
        if (queued.length > 0) await this.queue(run, queued);
        return true;
      },
      undefined,
      (done) => done,
    );
  }

  private async queue(run: StatementRunner, queued: readonly Queued[]): Promise<void> {
    const users = padded([...new Set(queued.map((row) => row.userId))]);
    const locked = await run<Array<{ user_id: number }>>(webhookSql.lockUsersWithPending(users.length), [this.endpoint, ...users]);
    const behind = new Set(locked.map((row) => row.user_id));
    const values = queued.map((row) => {
      const first = !behind.has(row.userId);
      behind.add(row.userId);
      return [this.endpoint, row.eventId, row.userId, row.attempts, row.error, first ? row.delaySeconds : null];
    });
    for (let start = 0; start < values.length; ) {
      const size = chunkSize(values.length - start);
      await run(webhookSql.queue(size), values.slice(start, start + size).flat());
      start += size;
    }
  }

  /** Up to `limit` deliveries due now, each its user's oldest pending one. */
  async due(limit: number): Promise<Due[]> {
    const rows = await this.db.read<DueRow[]>(webhookSql.due, [this.endpoint, limit]);
    if (rows.length === 0) return [];
    const events = await this.log.byIds(rows.map((row) => Number(row.id)));
    return rows.map((row) => ({
      eventId: Number(row.id),
      userId: row.user_id,
      attempts: row.attempts,
      ageSeconds: Number(row.age_us) / 1e6,
      event: events.get(Number(row.id)),
    }));
  }

  /** Acknowledged: the row goes, and the user's next delivery (if waiting) is due. */
  delivered(due: Due): Promise<void> {
    return this.settle(due, webhookSql.delivered, [this.endpoint, due.eventId, due.attempts]);
  }

  retryLater(due: Due, error: string, delaySeconds: number): Promise<void> {
    return this.db.write(webhookSql.retryLater, [error, delaySeconds, this.endpoint, due.eventId, due.attempts]).then(() => {});
  }

  /** Failed for good: it no longer holds back the user's next delivery. */
  giveUp(due: Due, error: string): Promise<void> {
    return this.settle(due, webhookSql.giveUp, [error, this.endpoint, due.eventId, due.attempts]);
  }

  /** Makes due any waiting delivery left with nothing before it (a safety net: see webhookSql.stranded). Resolves with how many. */
  async wakeStranded(limit: number): Promise<number> {
    const rows = await this.db.read<Array<{ event_id: number | string }>>(webhookSql.stranded, [this.endpoint, limit]);
    if (rows.length === 0) return 0;
    const ids = padded(rows.map((row) => Number(row.event_id)));
    await this.db.write(webhookSql.wake(ids.length), [this.endpoint, ...ids]);
    return rows.length;
  }

  private async settle(due: Due, statement: string, values: unknown[]): Promise<void> {
    await this.db.transaction(async (run) => {
      const { affectedRows } = await run<ResultSetHeader>(statement, values);
      if (affectedRows === 1) await run(webhookSql.promoteNext, [this.endpoint, due.userId]);
    });
  }
}

/** The largest power of two, up to QUEUE_CHUNK, that fits in `left`. */
function chunkSize(left: number): number {
  let size = QUEUE_CHUNK;
  while (size > left) size /= 2;
  return size;
}
