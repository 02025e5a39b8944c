import type { Database } from '../db/database.js';
import type { Logger } from '../log/logger.js';
import type { EventLog } from './event-log.js';
import { Lease } from './lease.js';

const LEASE_SECONDS = 60;

/**
 * Removes events older than EVENTS_RETENTION, in small batches, from one process at a time (the
 * `events:prune` lease): every `intervalMs` it prunes until nothing expired is left.
 */
export class Pruner {
  private readonly lease: Lease;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    db: Database,
    private readonly log: EventLog,
    private readonly retentionSeconds: number,
    private readonly logger: Logger,
    private readonly intervalMs = 60_000,
  ) {
    this.lease = new Lease(db, 'events:prune', LEASE_SECONDS);
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass().finally(() => this.schedule(this.intervalMs));
    }, delayMs);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    try {
      if (!(await this.lease.take())) return;
      let removed = 0;
      for (;;) {
        if (this.stopped || !this.lease.held()) break;
        const count = await this.log.pruneBatch(this.retentionSeconds);
        removed += count;
        if (count === 0) break;
      }
      if (removed > 0) this.logger.info('events pruned', { removed, retentionSeconds: this.retentionSeconds });
    } catch (error) {
      this.logger.warn('pruning events failed, trying again later', { reason: (error as Error).message });
    }
  }
}
