import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import { eventSql } from '../db/event-statements.js';

/** This process, as a lease holder: host, process id and a random part (a restarted process is another holder). */
export const thisHolder = `${hostname().slice(0, 60)}:${process.pid}:${randomBytes(4).toString('hex')}`;

/**
 * A named job that one process does at a time, whichever worker or instance (a row in
 * event_leases, so it holds across a Galera cluster, where named locks are per node). The holder
 * renews it well before it expires; a process that died lets it expire, and another takes it.
 * `held()` is true only while the last renewal is recent enough that the lease cannot have
 * expired meanwhile, so a paused holder stops before another could start.
 */
export class Lease {
  private renewedAt = -Infinity;

  constructor(
    private readonly db: Database,
    readonly name: string,
    private readonly ttlSeconds: number,
    private readonly holder = thisHolder,
  ) {}

  /** Takes or renews the lease: true when this process holds it now. A failure (the database away) counts as not held. */
  async take(): Promise<boolean> {
    const asked = performance.now();
    try {
      await this.db.write(eventSql.takeLease, [this.name, this.holder, this.ttlSeconds]);
      const [row] = await this.db.read<Array<{ holder: string }>>(eventSql.leaseHolder, [this.name]);
      if (row?.holder === this.holder) {
        this.renewedAt = asked;
        return true;
      }
    } catch {
      // Not renewed: held() runs out on its own.
    }
    this.renewedAt = -Infinity;
    return false;
  }

  /**
   * True while another process holds the lease: a read only, so that the processes waiting for it
   * can ask often and cheaply, and try take() (a write) only once it is free. A failure counts as held.
   */
  async heldElsewhere(): Promise<boolean> {
    try {
      const [row] = await this.db.read<Array<{ holder: string }>>(eventSql.leaseHolder, [this.name]);
      return row !== undefined && row.holder !== this.holder;
    } catch {
      return true;
    }
  }

  /** True while a renewal asked for less than two thirds of the lease's time ago succeeded. */
  held(): boolean {
    return performance.now() - this.renewedAt < (this.ttlSeconds * 1000 * 2) / 3;
  }

  /** Gives the lease up at once, so another process need not wait for it to expire. */
  async release(): Promise<void> {
    this.renewedAt = -Infinity;
    await this.db.write(eventSql.releaseLease, [this.name, this.holder]).catch(() => {});
  }
}
