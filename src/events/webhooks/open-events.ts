import type { StoredEvent } from '../event-log.js';
import type { Queued } from './endpoint-rows.js';

/** How an event was settled: acknowledged, or to be queued as a pending delivery. */
export type Settled = { kind: 'acknowledged' } | ({ kind: 'queued' } & Omit<Queued, 'eventId' | 'userId'>);

/** An event read from the outbox and not yet committed: settled once its outcome is known. */
export interface OpenEvent {
  readonly event: StoredEvent;
  outcome: Settled | undefined;
}

/** What the next commit writes: the mark moved from `from` to `through`, and the rows to queue. */
export interface Checkpoint {
  from: number;
  through: number;
  queued: Queued[];
  /** How many open events it covers, from the first. */
  count: number;
}

/**
 * The events read for an endpoint and not yet committed, in id order. The mark moves over the
 * longest run of settled events from the first, never past one still unsettled (in flight, or
 * waiting its turn), so that after a crash only events from that one on are sent again.
 */
export class OpenEvents {
  private entries: OpenEvent[] = [];

  constructor(
    /** The mark as last committed: every open event has a greater id. */
    private through: number,
  ) {}

  get committedThrough(): number {
    return this.through;
  }

  /** The last id read: the next read starts after it. */
  get readThrough(): number {
    return this.entries.at(-1)?.event.id ?? this.through;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Events just read (ids after readThrough, in order), now open. */
  add(events: readonly StoredEvent[]): OpenEvent[] {
    const added = events.map((event) => ({ event, outcome: undefined }));
    this.entries.push(...added);
    return added;
  }

  /** What to commit next, or undefined when the settled run from the first has not grown. */
  nextCheckpoint(): Checkpoint | undefined {
    let count = 0;
    const queued: Queued[] = [];
    for (const { event, outcome } of this.entries) {
      if (outcome === undefined) break;
      count++;
      if (outcome.kind === 'queued') {
        queued.push({ eventId: event.id, userId: event.user_id, attempts: outcome.attempts, error: outcome.error, delaySeconds: outcome.delaySeconds });
      }
    }
    if (count === 0) return undefined;
    return { from: this.through, through: this.entries[count - 1]!.event.id, queued, count };
  }

  /** The checkpoint was committed: its events are no longer open. Returns them. */
  committed(checkpoint: Checkpoint): OpenEvent[] {
    this.through = checkpoint.through;
    return this.entries.splice(0, checkpoint.count);
  }
}
