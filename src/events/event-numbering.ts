import { padded } from '../db/batcher.js';
import type { Database } from '../db/database.js';
import { eventSql } from '../db/event-statements.js';
import { causeOf, StorageError } from '../errors/storage-error.js';
import type { Logger } from '../log/logger.js';

/** Batches numbered by one transaction at most. */
const ROUND = 1024;
/** How often committed events still without an id are looked for, besides after this process's own commits. */
const SWEEP_MS = 1000;
/**
 * Under a steady flow of commits, rounds start at most this often: the commits between them share
 * one. Every round is a transaction of its own, which costs the database about what a write batch
 * does: rounds after every commit took a fifth of the throughput of writes with events on.
 */
const SPACING_MS = 25;

/**
 * Gives committed events their ids (see event-statements.ts): each round is one transaction that
 * locks the last id handed out, reads the batches still without ids in the order they were written,
 * numbers their events on from it and moves it on. Rounds follow one another service-wide (the lock; on a
 * Galera cluster, certification), so ids follow the order events became readable.
 *
 * Every process with events on numbers: after each of its own commits that recorded events (at
 * once when it has not numbered for SPACING_MS, else once that has passed: commits meanwhile share
 * the round), and once a second for what another process committed and did not number (it died,
 * or lost its database meanwhile). `numbered` is told the last id after each round that numbered some.
 */
export class EventNumbering {
  private running: Promise<void> | undefined;
  private waiting: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  /** A round is asked for; `known` when some events are known to wait (this process committed them). */
  private asked = false;
  private known = false;
  private lastRoundEnded = -Infinity;
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

  /** Events were committed here: number them soon. */
  readonly committed = (): void => this.ask(true);

  /** Finishes the round under way; nothing is numbered afterwards (another process numbers what is left). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.sweeper);
    clearTimeout(this.waiting);
    await this.running;
  }

  private sweep(): void {
    if (this.stopped) return;
    this.ask(false);
    this.sweeper = setTimeout(() => this.sweep(), this.sweepMs);
    this.sweeper.unref();
  }

  private ask(known: boolean): void {
    if (this.stopped) return;
    this.asked = true;
    this.known ||= known;
    if (this.running || this.waiting) return;
    const wait = this.lastRoundEnded + SPACING_MS - performance.now();
    if (wait <= 0) return this.run();
    this.waiting = setTimeout(() => {
      this.waiting = undefined;
      this.run();
    }, wait);
  }

  private run(): void {
    const known = this.known;
    this.asked = this.known = false;
    this.running = this.rounds(known).finally(() => {
      this.running = undefined;
      this.lastRoundEnded = performance.now();
      if (this.asked) this.ask(this.known);
    });
  }

  /** Rounds until none is left to number, or a round fails (the next sweep tries again). */
  private async rounds(known: boolean): Promise<void> {
    try {
      let count = await this.round(known);
      while (count === ROUND && !this.stopped) count = await this.round(true);
      if (this.failing) this.logger.info('numbering events recovered');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn('numbering events failed, trying again', { reason: reasonOf(error) });
      this.failing = true;
    }
  }

  /** One numbering transaction; resolves with how many batches it numbered. */
  private async round(known: boolean): Promise<number> {
    // A sweep mostly finds nothing (the process that wrote them numbered them): it takes no lock.
    if (!known && (await this.db.read<unknown[]>(eventSql.unnumbered, [1])).length === 0) return 0;
    const last = await this.db.transaction(async (run) => {
      const { insertId: lastId } = await run(eventSql.lockLastId, []);
      const rows = await run<Array<{ seq: number | string; count: number }>>(eventSql.unnumbered, [ROUND]);
      if (rows.length === 0) return { lastId, batches: 0 };
      const firsts: unknown[] = [];
      const lasts: unknown[] = [];
      let through = lastId;
      for (const row of rows) {
        firsts.push(row.seq, through + 1);
        through += row.count;
        lasts.push(row.seq, through);
      }
      // Padded by repeating the last batch: its first WHEN wins, so the repeats number nothing.
      const shape = padded(rows);
      for (let i = rows.length; i < shape.length; i++) {
        firsts.push(...firsts.slice(-2));
        lasts.push(...lasts.slice(-2));
      }
      const { affectedRows } = await run(eventSql.number(shape.length), [...firsts, ...lasts, through, ...shape.map((row) => row.seq)]);
      if (affectedRows !== rows.length + 1) throw new StorageError(new Error(`numbered ${affectedRows - 1} of ${rows.length} batches`));
      return { lastId: through, batches: rows.length };
    });
    if (last.batches > 0) this.numbered(last.lastId);
    return last.batches;
  }
}

function reasonOf(error: unknown): string {
  const cause = causeOf(error);
  return cause instanceof Error ? cause.message : String(cause);
}
