import { padded } from '../../db/batcher.js';
import type { Database } from '../../db/database.js';
import { webhookSql } from '../../db/event-statements.js';
import { isNoSuchTable } from '../../db/mysql-errors.js';
import { withMilliseconds } from '../event-json.js';

/** A delivery marked failed, as `npm run webhooks -- failed` lists it. */
export interface FailedDelivery {
  url: string;
  eventId: number;
  /** Null once the event was pruned (EVENTS_RETENTION): it can no longer be sent. */
  type: string | null;
  userId: number;
  attempts: number;
  lastError: string | null;
  /** When its retry period began (UTC). */
  queuedAt: string;
}

/** Why `npm run webhooks` cannot go on, in one line for the operator: a command it does not know, no webhook tables. */
export class WebhookToolError extends Error {}

/** Rows read or changed per statement: memory stays bounded however many deliveries failed. */
const PAGE = 500;
/** Event ids per look-up of a resend. */
const IDS_PER_STATEMENT = 64;

/** The operator's side of webhook delivery: failed deliveries listed, and sent again. */
export class WebhookOperator {
  constructor(private readonly db: Database) {}

  /** Every failed delivery, endpoint by endpoint in event id order, handed to `each` a page at a time. Resolves with how many. */
  async failed(each: (delivery: FailedDelivery) => void): Promise<number> {
    let count = 0;
    for (const { endpoint, url } of await this.endpoints()) {
      for (let after = 0; ; ) {
        const rows = await this.read<FailedRow[]>(webhookSql.failedPage, [endpoint, after, PAGE]);
        for (const row of rows) {
          each({ url, eventId: Number(row.event_id), type: row.type, userId: row.user_id, attempts: row.attempts, lastError: row.last_error, queuedAt: withMilliseconds(row.queued_at) });
        }
        count += rows.length;
        if (rows.length < PAGE) break;
        after = Number(rows[rows.length - 1]!.event_id);
      }
    }
    return count;
  }

  /** Sets every failed delivery pending again (a new retry period). Resolves with how many. */
  async resendAll(): Promise<number> {
    let count = 0;
    for (const { endpoint } of await this.endpoints()) {
      for (;;) {
        const { affectedRows } = await this.db.write(webhookSql.resendAll, [endpoint, PAGE]);
        count += affectedRows;
        if (affectedRows < PAGE) break;
      }
    }
    return count;
  }

  /** Sets the failed deliveries of these events pending again, to every endpoint where they failed. Resolves with the ids that had none. */
  async resend(eventIds: readonly number[]): Promise<{ resent: number; notFailed: number[] }> {
    const found = new Set<number>();
    let resent = 0;
    for (const { endpoint } of await this.endpoints()) {
      for (let start = 0; start < eventIds.length; start += IDS_PER_STATEMENT) {
        const ids = padded(eventIds.slice(start, start + IDS_PER_STATEMENT));
        const failed = await this.read<Array<{ event_id: number | string }>>(webhookSql.failedOf(ids.length), [endpoint, ...ids]);
        if (failed.length === 0) continue;
        const failedIds = padded(failed.map((row) => Number(row.event_id)));
        for (const id of failedIds) found.add(id);
        resent += (await this.db.write(webhookSql.resendEvents(failedIds.length), [endpoint, ...failedIds])).affectedRows;
      }
    }
    return { resent, notFailed: eventIds.filter((id) => !found.has(id)) };
  }

  private endpoints(): Promise<Array<{ endpoint: string; url: string }>> {
    return this.read(webhookSql.endpoints, []);
  }

  private async read<T>(statement: string, values: unknown[]): Promise<T> {
    try {
      return await this.db.read<T>(statement, values);
    } catch (error) {
      if (isNoSuchTable(error)) {
        throw new WebhookToolError('there are no webhook tables in this database: the service never ran with EVENTS=on');
      }
      throw error;
    }
  }
}

interface FailedRow {
  event_id: number | string;
  type: string | null;
  user_id: number;
  attempts: number;
  last_error: string | null;
  queued_at: string;
}
