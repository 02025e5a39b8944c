import { randomBytes } from 'node:crypto';
import { NAMES_PER_SYNC, type CountRow, type CountSums } from '../../db/limit-counts.js';
import type { Logger } from '../../log/logger.js';
import type { Peers } from './claim-ledger.js';
import type { SyncSource } from './sync-source.js';

/** The one call a sync makes to the database (LimitCounts.exchange). */
export interface CountExchange {
  exchange(instance: string, rows: readonly CountRow[], now: number, pruning: boolean): Promise<CountSums[]>;
}

/** What a sync reports, for the metrics. */
export interface SyncFigures {
  /** When a sync last answered (ms since the epoch); 0 before the first. */
  lastSyncAt: number;
  failures: number;
  /** Round trips made, answered or not. */
  statements: number;
}

/** With nothing to publish, a heartbeat still goes this often, so that others count this instance as live. */
const IDLE_HEARTBEAT_MS = 5000;
/** For this long after its first sync an instance heartbeats at every sync, so that instances starting together soon agree how many are live. */
const SETTLING_MS = 3 * IDLE_HEARTBEAT_MS;
/** Expired rows are deleted this often (by the instance that wrote them, or by anyone once abandoned). */
const PRUNE_INTERVAL_MS = 60_000;

/**
 * Publishes this instance's counts of every shared limit (the sources) and reads back everyone's, every
 * `syncMs`: one round trip for up to NAMES_PER_SYNC keys changed since the last sync, plus this
 * instance's heartbeat row (name ''), whose count tells how many instances are live. A sync runs
 * only once the one before it answered. While syncs fail, the sources decide alone (one warning,
 * and `limits shared again` once a sync answers); their counts made meanwhile go with the next sync.
 */
export class LimitSync {
  /** Unique per process start: the rows it writes are its own. */
  readonly instance = randomBytes(16).toString('hex');
  readonly figures: SyncFigures = { lastSyncAt: 0, failures: 0, statements: 0 };
  private peers: Peers = { live: 1, rank: 0, synced: false };
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private warned = false;
  private lastRoundTripAt = 0;
  private firstSyncAt: number | undefined;
  private lastPruneAt = 0;

  constructor(
    private readonly counts: CountExchange,
    private readonly sources: readonly SyncSource[],
    private readonly syncMs: number,
    private readonly logger: Logger,
  ) {}

  /** How the sources see the other instances. */
  readonly view = (): Peers => this.peers;

  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    const tick = (): void => {
      this.running = this.sync().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.timer = setTimeout(tick, this.syncMs).unref();
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One sync (exported for tests): publishes what changed, learns the sums. */
  async sync(now = Date.now()): Promise<void> {
    const bySource = this.sources.map((source) => ({ source, rows: source.rows(now) }));
    const pending: Array<{ source: SyncSource; row: CountRow }> = [];
    for (const { source, rows } of bySource) for (const row of rows) pending.push({ source, row });
    this.firstSyncAt ??= now;
    const settled = now - this.firstSyncAt >= SETTLING_MS;
    if (pending.length === 0 && settled && now - this.lastRoundTripAt < Math.max(IDLE_HEARTBEAT_MS, this.syncMs)) return;
    try {
      for (let from = 0; from === 0 || from < pending.length; from += NAMES_PER_SYNC) {
        await this.roundTrip(pending.slice(from, from + NAMES_PER_SYNC), now, from === 0);
      }
      this.answered(now);
    } catch (error) {
      this.failed(error, bySource);
    }
  }

  private async roundTrip(chunk: Array<{ source: SyncSource; row: CountRow }>, now: number, first: boolean): Promise<void> {
    const rows: CountRow[] = chunk.map(({ source, row }) => ({ ...row, name: source.prefix + row.name }));
    if (first) rows.push({ name: '', windowStart: 0, used: 0, claim: 0, blockedUntil: 0, expiresAt: now + 3 * Math.max(IDLE_HEARTBEAT_MS, this.syncMs) });
    const pruning = first && now - this.lastPruneAt >= PRUNE_INTERVAL_MS;
    this.figures.statements++;
    this.lastRoundTripAt = now;
    const sums = await this.counts.exchange(this.instance, rows, now, pruning);
    if (pruning) this.lastPruneAt = now;
    for (const sum of sums) {
      if (sum.name === '') {
        this.peers = { live: Math.max(1, sum.counting), rank: sum.rank, synced: true };
        continue;
      }
      const source = this.sources.find((candidate) => sum.name.startsWith(candidate.prefix));
      source?.learn({ ...sum, name: sum.name.slice(source.prefix.length) }, now);
    }
  }

  private answered(now: number): void {
    this.figures.lastSyncAt = now;
    if (!this.warned) return;
    this.warned = false;
    this.logger.info('limits shared again', { instances: this.peers.live });
  }

  private failed(error: unknown, bySource: Array<{ source: SyncSource; rows: CountRow[] }>): void {
    this.figures.failures++;
    this.peers = { ...this.peers, synced: false };
    for (const { source, rows } of bySource) {
      source.unsent(rows);
      source.alone();
    }
    if (this.warned) return;
    this.warned = true;
    this.logger.warn('limits counted by this instance alone until the database answers', { reason: error instanceof Error ? error.message : String(error) });
  }
}
