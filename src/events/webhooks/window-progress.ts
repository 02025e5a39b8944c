import type { StoredEvent } from '../event-log.js';
import type { Queued } from './endpoint-rows.js';

/** How one event of a window was settled: acknowledged, or to be queued as a pending delivery. */
export type Settled = { kind: 'acknowledged' } | ({ kind: 'queued' } & Omit<Queued, 'eventId' | 'userId'>);

/** What the next commit of a window writes: the mark moved from `from` to `through`, and the rows to queue. */
export interface Checkpoint {
  from: number;
  through: number;
  queued: Queued[];
  /** Events of the window it covers (for committed()). */
  upTo: number;
}

/**
 * A window of events being delivered: which are settled, and how far the mark may move. It moves
 * over the longest run of settled events from the window's start, never past an event still in
 * flight, so that after a crash only events from that one on are sent again.
 */
export class WindowProgress {
  private readonly settled: Array<Settled | undefined>;
  private committedCount = 0;

  constructor(
    /** The mark before the window: its events all have greater ids. */
    private readonly from: number,
    readonly events: readonly StoredEvent[],
  ) {
    this.settled = new Array<Settled | undefined>(events.length);
  }

  settle(index: number, outcome: Settled): void {
    this.settled[index] = outcome;
  }

  /** The mark as last committed. */
  get committedThrough(): number {
    return this.committedCount === 0 ? this.from : this.events[this.committedCount - 1]!.id;
  }

  /** What to commit next, or undefined when the settled run has not grown since the last commit. */
  nextCheckpoint(): Checkpoint | undefined {
    let upTo = this.committedCount;
    while (upTo < this.events.length && this.settled[upTo] !== undefined) upTo++;
    if (upTo === this.committedCount) return undefined;
    const queued: Queued[] = [];
    for (let i = this.committedCount; i < upTo; i++) {
      const outcome = this.settled[i]!;
      if (outcome.kind === 'acknowledged') continue;
      const { kind: _, ...rest } = outcome;
      queued.push({ eventId: this.events[i]!.id, userId: this.events[i]!.user_id, ...rest });
    }
    return { from: this.committedThrough, through: this.events[upTo - 1]!.id, queued, upTo };
  }

  committed(checkpoint: Checkpoint): void {
    this.committedCount = checkpoint.upTo;
  }

  /** The indexes of each user's events, in id order; users in the order of their first event. */
  byUser(): number[][] {
    const chains = new Map<number, number[]>();
    this.events.forEach((event, index) => {
      const chain = chains.get(event.user_id);
      if (chain) chain.push(index);
      else chains.set(event.user_id, [index]);
    });
    return [...chains.values()];
  }
}
