import { padded } from '../db/batcher.js';
import type { Database } from '../db/database.js';
import { eventSql } from '../db/event-statements.js';
import { causeOf, StorageError } from '../errors/storage-error.js';
import type { Logger } from '../log/logger.js';

/** Events numbered by one transaction at most. */
const ROUND = 1024;
/** How often committed events still without an id are looked for, besides after this process's own commits. */
const SWEEP_MS = 1000;

/**
 * Gives committed events their ids (see event-statements.ts): each round is one transaction that
 * locks the last id handed out, reads the events still without one in the order they were written,
 * numbers them on from it and moves it on. Rounds follow one another service-wide (the lock; on a
 * Galera cluster, certification), so ids follow the order events became readable.
 *
 * Every process with events on numbers: right after each of its own commits that recorded events
 * (asked while a round runs, one more round follows it), and once a second for what another
 * process committed and did not number (it died, or lost its database meanwhile). `numbered` is
 * told the last id after each round that numbered some.
 */
export class EventNumbering {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly numbered: (lastId: number) => void = () => {},
    private readonly sweepMs = SWEEP_MS,
  ) {}

  start(): void {
    this.sweep();
  }

  /** Events were committed: number them now, or right after the round under way. */
  readonly committed = (): void => {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.rounds().finally(() => (this.running = undefined));
  };

  /** Finishes the round under way; nothing is numbered afterwards (another process numbers what is left). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private sweep(): void {
    if (this.stopped) return;
    this.committed();
    this.timer = setTimeout(() => this.sweep(), this.sweepMs);
    this.timer.unref();
  }

  /** Rounds until none is left to number, or a round fails (the next sweep tries again). */
  private async rounds(): Promise<void> {
    try {
      do {
        this.again = false;
        while (!this.stopped && (await this.round()) === ROUND);
      } while (this.again && !this.stopped);
      if (this.failing) this.logger.info('numbering events recovered');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn('numbering events failed, trying again', { reason: reasonOf(error) });
      this.failing = true;
    }
  }

  /** One numbering transaction; resolves with how many events it numbered. */
  private async round(): Promise<number> {
    // Most looks find nothing (another process numbered first): they take no lock.
    if ((await this.db.read<unknown[]>(eventSql.unnumbered, [1])).length === 0) return 0;
    const last = await this.db.transaction(async (run) => {
      const { insertId: lastId } = await run(eventSql.lockLastId, []);
      const rows = await run<Array<{ seq: number | string }>>(eventSql.unnumbered, [ROUND]);
      if (rows.length === 0) return { lastId, count: 0 };
      const seqs = rows.map((row) => row.seq);
      // Padded by repeating the last seq: its first WHEN wins, so the repeats number nothing.
      const shape = padded(seqs);
      const { affectedRows } = await run(eventSql.number(shape.length), [...shape.flatMap((seq, i) => [seq, lastId + i + 1]), ...shape]);
      if (affectedRows !== seqs.length) throw new StorageError(new Error(`numbered ${affectedRows} of ${seqs.length} events`));
      await run(eventSql.setLastId, [lastId + seqs.length]);
      return { lastId: lastId + seqs.length, count: seqs.length };
    });
    if (last.count > 0) this.numbered(last.lastId);
    return last.count;
  }
}

function reasonOf(error: unknown): string {
  const cause = causeOf(error);
  return cause instanceof Error ? cause.message : String(cause);
}
