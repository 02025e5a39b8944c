import { padded } from '../../db/batcher.js';
import type { Database } from '../../db/database.js';
import { webhookSql } from '../../db/webhook-statements.js';
import { isNoSuchTable } from '../../db/mysql-errors.js';
import { withMilliseconds } from '../event-json.js';
import { EventLog } from '../event-log.js';
import { endpointCounts, type EndpointCount } from './endpoint-counts.js';
import type { FailedDelivery, LeftBehind, PendingDelivery } from './delivery-listing.js';
import { shownUrl } from './shown-url.js';
import { wakeFirsts } from './wake-firsts.js';

/** Why `npm run webhooks` cannot go on, in one line for the operator: an endpoint it does not know, no webhook tables. */
export class WebhookToolError extends Error {}

/** Rows read or changed per statement: memory stays bounded however many deliveries failed. */
const PAGE = 500;
/** Event ids per look-up of a resend. */
const IDS_PER_STATEMENT = 64;

/**
 * The operator's side of webhook delivery: pending and failed deliveries listed, failed ones sent
 * again, and the deliveries of an endpoint no longer configured dropped or moved to another.
 */
export class WebhookOperator {
  private readonly log: EventLog;

  constructor(private readonly db: Database) {
    this.log = new EventLog(db);
  }

  /** The types of these events, by id (those pruned are absent). */
  private async typesOf(rows: ReadonlyArray<{ event_id: number | string }>): Promise<Map<number, string>> {
    const events = rows.length === 0 ? new Map() : await this.log.byIds(rows.map((row) => Number(row.event_id)));
    return new Map([...events].map(([id, event]) => [id, event.type]));
  }

  /** Every failed delivery, endpoint by endpoint in event id order, handed to `each` a page at a time. Resolves with how many. */
  async failed(each: (delivery: FailedDelivery) => void): Promise<number> {
    let count = 0;
    for (const { endpoint, url } of await this.endpoints()) {
      for (let after = 0; ; ) {
        const rows = await this.read<FailedRow[]>(webhookSql.failedPage, [endpoint, after, PAGE]);
        const types = await this.typesOf(rows);
        for (const row of rows) {
          const eventId = Number(row.event_id);
          each({ url: shownUrl(url), eventId, type: types.get(eventId) ?? null, userId: row.user_id, attempts: row.attempts, lastError: row.last_error, queuedAt: withMilliseconds(row.queued_at) });
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

  /**
   * Sends these events again to every endpoint where their delivery failed (pending again, a new
   * retry period) or waits for a retry (due now). Resolves with how many of each, and the ids that
   * had neither.
   */
  async resend(eventIds: readonly number[]): Promise<{ resent: number; retried: number; notFound: number[] }> {
    const found = new Set<number>();
    let resent = 0;
    let retried = 0;
    for (const { endpoint } of await this.endpoints()) {
      for (let start = 0; start < eventIds.length; start += IDS_PER_STATEMENT) {
        const ids = padded(eventIds.slice(start, start + IDS_PER_STATEMENT));
        const failed = await this.idsOf(webhookSql.failedOf(ids.length), endpoint, ids);
        const pending = await this.idsOf(webhookSql.pendingOf(ids.length), endpoint, ids);
        for (const id of [...failed, ...pending]) found.add(id);
        if (failed.length > 0) resent += (await this.db.write(webhookSql.resendEvents(failed.length), [endpoint, ...failed])).affectedRows;
        if (pending.length > 0) retried += (await this.db.write(webhookSql.retryEvents(pending.length), [endpoint, ...pending])).affectedRows;
      }
    }
    return { resent, retried, notFound: eventIds.filter((id) => !found.has(id)) };
  }

  private async idsOf(statement: string, endpoint: string, ids: readonly number[]): Promise<number[]> {
    const rows = await this.read<Array<{ event_id: number | string }>>(statement, [endpoint, ...ids]);
    return rows.length === 0 ? [] : padded(rows.map((row) => Number(row.event_id)));
  }

  /**
   * Every pending delivery, endpoint by endpoint in event id order, handed to `each` a page at a
   * time. Resolves with how many, and the endpoints that have some but that no running service
   * delivers to.
   */
  async pending(each: (delivery: PendingDelivery) => void): Promise<{ count: number; leftBehind: LeftBehind[] }> {
    let count = 0;
    const counts = await this.counts();
    for (const { endpoint, url } of counts) {
      for (let after = 0; ; ) {
        const rows = await this.read<PendingRow[]>(webhookSql.pendingPage, [endpoint, after, PAGE]);
        const types = await this.typesOf(rows);
        for (const row of rows) each(pendingDelivery(shownUrl(url), row, types.get(Number(row.event_id)) ?? null));
        count += rows.length;
        if (rows.length < PAGE) break;
        after = Number(rows[rows.length - 1]!.event_id);
      }
    }
    const leftBehind = counts.filter((one) => !one.delivered && one.pending > 0).map(({ url, pending, failed }) => ({ url: shownUrl(url), pending, failed }));
    return { count, leftBehind };
  }

  /**
   * Forgets an endpoint no running service delivers to: its pending and failed deliveries, and its
   * row (configured again, it starts at the events recorded then). Resolves with what was dropped.
   */
  async drop(given: string): Promise<LeftBehind> {
    const target = await this.endpointNamed(given);
    await this.refuseWhileDelivered(target, 'drop');
    for (let dropped = PAGE; dropped === PAGE; ) dropped = (await this.db.write(webhookSql.dropDeliveries, [target.endpoint, PAGE])).affectedRows;
    await this.db.write(webhookSql.dropEndpoint, [target.endpoint]);
    return { url: shownUrl(target.url), pending: target.pending, failed: target.failed };
  }

  /**
   * Hands every delivery of an endpoint no running service delivers to (pending or failed) to
   * another known endpoint, pending anew with a new retry period, and forgets the first. Each user's
   * go in event id order, after any of that user the other endpoint still has pending. Resolves
   * with how many were moved, and whether a service delivers to the other endpoint now.
   */
  async move(fromGiven: string, toGiven: string): Promise<{ from: string; to: string; moved: number; toDelivered: boolean }> {
    const from = await this.endpointNamed(fromGiven);
    const to = await this.endpointNamed(toGiven);
    if (from.endpoint === to.endpoint) throw new WebhookToolError('move needs two different endpoints');
    await this.refuseWhileDelivered(from, 'move');
    // An event both have (pending or failed at the other too) is left to the other: never twice.
    await this.db.write(webhookSql.dropMovedTwice, [to.endpoint, from.endpoint]);
    let moved = 0;
    for (;;) {
      const { affectedRows } = await this.db.write(webhookSql.moveDeliveries, [to.endpoint, from.endpoint, PAGE]);
      moved += affectedRows;
      if (affectedRows < PAGE) break;
    }
    await wakeFirsts(this.db, to.endpoint);
    await this.db.write(webhookSql.dropEndpoint, [from.endpoint]);
    return { from: shownUrl(from.url), to: shownUrl(to.url), moved, toDelivered: to.delivered };
  }

  /** The endpoint named by its URL as configured, or as listed (without its query) when only one matches. */
  private async endpointNamed(given: string): Promise<EndpointCount> {
    const counts = await this.counts();
    const exact = counts.find((one) => one.url === given);
    if (exact) return exact;
    const shown = counts.filter((one) => shownUrl(one.url) === given);
    if (shown.length === 1) return shown[0]!;
    if (shown.length > 1) throw new WebhookToolError(`${shown.length} endpoints are ${given} with different queries: name one with its query, as in WEBHOOK_URLS`);
    const known = counts.map((one) => shownUrl(one.url));
    throw new WebhookToolError(`no webhook endpoint ${given} is known${known.length === 0 ? '' : ` (known: ${known.join(', ')})`}`);
  }

  private async refuseWhileDelivered(endpoint: EndpointCount, command: string): Promise<void> {
    const held = await this.db.read<unknown[]>(webhookSql.endpointDelivered, [endpoint.endpoint]);
    if (held.length > 0) {
      throw new WebhookToolError(
        `a running service delivers to ${shownUrl(endpoint.url)}: take it out of WEBHOOK_URLS (of every instance) and restart before you ${command} its deliveries`,
      );
    }
  }

  private counts(): Promise<EndpointCount[]> {
    return this.tables(() => endpointCounts(this.db));
  }

  private endpoints(): Promise<Array<{ endpoint: string; url: string }>> {
    return this.read(webhookSql.endpoints, []);
  }

  private read<T>(statement: string, values: unknown[]): Promise<T> {
    return this.tables(() => this.db.read<T>(statement, values));
  }

  private async tables<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
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
  user_id: number;
  attempts: number;
  last_error: string | null;
  queued_at: string;
}

interface PendingRow {
  event_id: number | string;
  user_id: number;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string;
  in_seconds: number | string;
  behind: number | string | null;
}

function pendingDelivery(url: string, row: PendingRow, type: string | null): PendingDelivery {
  return {
    url,
    eventId: Number(row.event_id),
    type,
    userId: row.user_id,
    attempts: row.attempts,
    lastError: row.last_error,
    next: row.behind === null ? { at: withMilliseconds(row.next_attempt_at), inSeconds: Number(row.in_seconds) } : { behind: Number(row.behind) },
  };
}
