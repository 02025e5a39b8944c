import type { RateLimitSettings } from '../../config/environment.js';
import type { CountRow, CountSums } from '../../db/limit-counts.js';
import type { RequestCounter } from '../rate-limit.js';
import { MAX_TRACKED_KEYS, type Take } from '../window-counter.js';
import { ClaimLedger, type OwnRow, type Peers } from './claim-ledger.js';
import type { SyncSource } from './sync-source.js';

/**
 * RATE_LIMIT counted for every instance on the database (LIMITS_SHARED=on). Windows are aligned
 * to the clock (a 10 s window begins at every whole 10 s), so every instance counts a client in the
 * same window; each admits requests from its own claim on the allowance (claim-ledger.ts), with no
 * statement on the request path. A request refused while others may still give back part of
 * the allowance is told to retry after the next sync; one refused with the whole allowance claimed,
 * at the window's end. `RateLimit`'s remaining count is the window's allowance less what every
 * instance was last seen spending.
 */
export class SharedRequests implements RequestCounter, SyncSource {
  readonly prefix = 'r:';
  private readonly ledger: ClaimLedger;
  private readonly windowMs: number;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly syncMs: number,
    peers: () => Peers,
  ) {
    this.windowMs = settings.windowSeconds * 1000;
    this.ledger = new ClaimLedger(settings.requests, syncMs, settings.testing?.maxTracked ?? MAX_TRACKED_KEYS, peers);
  }

  take(key: string, now = Date.now()): Take {
    const windowStart = now - (now % this.windowMs);
    const resetAt = windowStart + this.windowMs;
    const entry = this.ledger.entry(key, windowStart, now);
    if (this.ledger.spend(entry)) return [Math.max(0, this.settings.requests - entry.othersUsed - entry.used), resetAt];
    if (this.ledger.exhausted(entry)) return [-1, resetAt];
    return [-1, Math.min(resetAt, now + this.syncMs)];
  }

  rows(now: number): CountRow[] {
    return this.ledger.pending((entry) => entry.windowStart + this.windowMs > now).map((row) => this.countRow(row));
  }

  learn(sums: CountSums, now: number): void {
    this.ledger.learn(sums, now);
  }

  unsent(rows: readonly CountRow[]): void {
    this.ledger.unsent(rows);
  }

  alone(): void {
    this.ledger.alone();
  }

  get tracked(): number {
    return this.ledger.tracked;
  }

  private countRow(row: OwnRow): CountRow {
    return { name: row.name, windowStart: row.windowStart, used: row.used, claim: row.claim, blockedUntil: 0, expiresAt: row.windowStart + this.windowMs };
  }
}
