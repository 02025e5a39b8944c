import { setTimeout as sleep } from 'node:timers/promises';
import { padded } from '../../../db/batcher.js';
import type { Database } from '../../../db/database.js';
import { decodeBatch, type BatchRow } from '../../../db/event-batches.js';
import { endpointSql } from '../../../db/webhook-endpoint-statements.js';
import type { EventLog, StoredEvent } from '../../event-log.js';
import type { EndpointRecord } from './endpoint-record.js';
import { wakeFirsts } from '../wake-firsts.js';

/** Batches read from the outbox at a time. */
const READ_BATCHES = 100;
/** Deliveries queued per statement at most. */
const QUEUE_CHUNK = 128;
/** How long a resend waits, at most, for the endpoint's mark to pass an event just delivered: tries of PASS_WAIT_MS. */
const PASS_TRIES = 30;
const PASS_WAIT_MS = 100;

/** A window that reaches back further than the events kept: `keptSince` is how far back they go. */
export class WindowTooOld extends Error {
  constructor(readonly keptSince: string) {
    super(`events are kept since ${keptSince}`);
    this.name = 'WindowTooOld';
  }
}

/**
 * Events delivered again to one endpoint: those of a time window it has not acknowledged (recover),
 * or one event (resend). Each is queued as a pending delivery behind its user's earlier ones, and
 * the first of each user made due, so the endpoint's delivering process sends them in per-user
 * order with the usual retries. Events after the endpoint's mark are not queued: they are on their
 * way already.
 */
export class EndpointRecovery {
  constructor(
    private readonly db: Database,
    private readonly log: EventLog,
    private readonly retentionSeconds: number,
  ) {}

  /** How many events are queued (or were pending already) for the endpoint. Times are `YYYY-MM-DD HH:MM:SS.mmm`, UTC. */
  async recover(record: EndpointRecord, since: string, until: string): Promise<number> {
    const keptSince = new Date(Date.now() - this.retentionSeconds * 1000).toISOString();
    if (Date.parse(`${since.replace(' ', 'T')}Z`) < Date.parse(keptSince)) throw new WindowTooOld(keptSince);
    const through = await this.queuedThrough(record);
    let after = 0;
    let count = 0;
    for (;;) {
      const rows = await this.db.read<BatchRow[]>(endpointSql.batchesInWindow, [since, until, after, through, READ_BATCHES]);
      if (rows.length === 0) break;
      after = Number(rows.at(-1)!.last_id);
      const events = rows.flatMap((row) => decodeBatch(row)).filter((event) => event.id <= through && takes(record, event));
      count += await this.requeue(record, await this.notAcknowledged(record, events));
      if (rows.length < READ_BATCHES) break;
    }
    await wakeFirsts(this.db, record.endpoint);
    return count;
  }

  /** False when the event is not kept, or not of the endpoint's types. */
  async resend(record: EndpointRecord, eventId: number): Promise<boolean> {
    const event = (await this.log.byIds([eventId])).get(eventId);
    if (event === undefined || !takes(record, event)) return false;
    if (await this.passed(record, eventId)) {
      await this.requeue(record, [event]);
      await wakeFirsts(this.db, record.endpoint);
    }
    return true;
  }

  /**
   * Whether the endpoint's mark has passed the event: it may have been delivered a moment ago and
   * not yet committed (the dispatcher commits several times a second), so this waits a little for
   * it. False: the event is still to come by the dispatcher, and sent anyway.
   */
  private async passed(record: EndpointRecord, eventId: number): Promise<boolean> {
    for (let tries = 0; tries < PASS_TRIES; tries++) {
      if (eventId <= (await this.queuedThrough(record))) return true;
      await sleep(PASS_WAIT_MS);
    }
    return false;
  }

  private async queuedThrough(record: EndpointRecord): Promise<number> {
    const [row] = await this.db.read<Array<{ queued_through: number | string }>>(endpointSql.queuedThrough, [record.endpoint]);
    return row === undefined ? 0 : Number(row.queued_through);
  }

  private async notAcknowledged(record: EndpointRecord, events: StoredEvent[]): Promise<StoredEvent[]> {
    if (events.length === 0) return events;
    const ids = padded(events.map((event) => event.id));
    const rows = await this.db.read<Array<{ event_id: number | string }>>(endpointSql.acknowledged(ids.length), [record.endpoint, ...ids]);
    const acknowledged = new Set(rows.map((row) => Number(row.event_id)));
    return events.filter((event) => !acknowledged.has(event.id));
  }

  private async requeue(record: EndpointRecord, events: StoredEvent[]): Promise<number> {
    for (let start = 0; start < events.length; start += QUEUE_CHUNK) {
      const chunk = events.slice(start, start + QUEUE_CHUNK);
      await this.db.write(endpointSql.requeue(chunk.length), chunk.flatMap((event) => [record.endpoint, event.id, event.user_id]));
    }
    return events.length;
  }
}

/** Whether the endpoint's filter takes the event. */
export function takes(record: Pick<EndpointRecord, 'eventTypes'>, event: Pick<StoredEvent, 'type'>): boolean {
  return record.eventTypes === null || record.eventTypes.includes(event.type);
}
