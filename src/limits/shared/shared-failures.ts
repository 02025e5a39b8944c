import type { GuessingLimits } from '../../config/environment.js';
import type { CountRow, CountSums } from '../../db/limit-counts.js';
import { MAX_TRACKED_ADDRESSES, type GuessingGuard } from '../failed-attempts.js';
import { setNewest } from '../newest-last.js';
import { ClaimLedger, type Peers } from './claim-ledger.js';
import type { SyncSource } from './sync-source.js';

/** What SharedFailures tells its owner. */
export interface FailureEvents {
  /** A wrong password counted here reached the limit: logged once, here. */
  blocked?(address: string): void;
  /** An address is refused until then (blocked here or elsewhere, or holding its share here): workers of this instance refuse it too. */
  refusing?(address: string, until: number): void;
}

/**
 * The list's wrong-password limit counted for every instance on the database (LIMITS_SHARED=on).
 * Each instance counts an address's wrong passwords within the last window (sliding, as in one
 * process) against its claim on AUTH_MAX_FAILURES (claim-ledger.ts); the sync publishes them with any
 * block. An address is blocked for a window once every instance's count together reaches the limit,
 * by whichever instance sees it first; the others learn it within one sync. An address that spent
 * this instance's claim is held, refused like a blocked one without its password compared, until a
 * sync grants more or blocks it: so no instance compares more passwords than its claim.
 */
export class SharedFailures implements GuessingGuard, SyncSource {
  readonly prefix = 'g:';
  private readonly ledger: ClaimLedger;
  private readonly windowMs: number;
  private readonly maxTracked: number;
  /** This instance's wrong passwords per address (ms), oldest first, within the window. */
  private readonly failures = new Map<string, number[]>();
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly limits: GuessingLimits,
    private readonly syncMs: number,
    peers: () => Peers,
    private readonly events: FailureEvents = {},
  ) {
    this.windowMs = limits.windowSeconds * 1000;
    this.maxTracked = limits.testing?.maxTracked ?? MAX_TRACKED_ADDRESSES;
    this.ledger = new ClaimLedger(limits.maxFailures, syncMs, this.maxTracked, peers);
  }

  blockedForMs(address: string, now = Date.now()): number {
    const until = this.blockedUntil.get(address);
    if (until !== undefined) {
      if (until > now) return until - now;
      this.blockedUntil.delete(address);
      this.ledger.forget(address);
    }
    const entry = this.ledger.get(address);
    if (entry === undefined) return 0;
    entry.used = this.recent(address, now).length;
    if (entry.used < entry.claim) return 0;
    // Held: this instance's claim is spent; the next sync grants more or blocks the address.
    entry.wanting = true;
    entry.dirty = true;
    this.events.refusing?.(address, now + this.syncMs);
    return this.syncMs;
  }

  /** Counts a wrong password (the address was neither blocked nor held); returns the block's end if this one reached the limit, else 0. */
  recordFailure(address: string, now = Date.now()): number {
    const entry = this.ledger.entry(address, 0, now);
    const recent = this.recent(address, now);
    recent.push(now);
    setNewest(this.failures, address, recent, this.maxTracked);
    entry.used = recent.length - 1;
    this.ledger.spend(entry);
    if (entry.used + entry.othersUsed < this.limits.maxFailures) return 0;
    const until = this.block(address, now + this.windowMs);
    this.events.blocked?.(address);
    return until;
  }

  recordSuccess(address: string): void {
    this.failures.delete(address);
    this.ledger.forget(address);
  }

  failed(address: string): number {
    this.recordFailure(address);
    return 0;
  }

  succeeded(address: string): number {
    this.recordSuccess(address);
    return 0;
  }

  /** Every address blocked now, as [address, blocked until (ms)] pairs. */
  blocked(now = Date.now()): Array<[string, number]> {
    return [...this.blockedUntil].filter(([, until]) => until > now);
  }

  rows(now: number): CountRow[] {
    return this.ledger
      .pending((entry, key) => {
        entry.used = this.recent(key, now).length;
        return true;
      })
      .map((row) => {
        const blockedUntil = this.blockedUntil.get(row.name) ?? 0;
        const last = this.failures.get(row.name)?.at(-1) ?? now;
        return { name: row.name, windowStart: 0, used: row.used, claim: row.claim, blockedUntil, expiresAt: Math.max(last + this.windowMs, blockedUntil, now + 2 * this.syncMs) };
      });
  }

  learn(sums: CountSums, now: number): void {
    const entry = this.ledger.learn(sums, now);
    if (sums.blockedUntil > now) this.block(sums.name, sums.blockedUntil);
    else if (entry !== undefined && sums.used >= this.limits.maxFailures) this.block(sums.name, now + this.windowMs);
  }

  unsent(rows: readonly CountRow[]): void {
    this.ledger.unsent(rows);
  }

  alone(): void {
    this.ledger.alone();
  }

  private block(address: string, until: number): number {
    if ((this.blockedUntil.get(address) ?? 0) >= until) return until;
    setNewest(this.blockedUntil, address, until, this.maxTracked);
    const entry = this.ledger.get(address);
    if (entry !== undefined) {
      // Published with the block; the count starts afresh once the block ends.
      entry.dirty = true;
      entry.used = 0;
      entry.othersUsed = 0;
    }
    this.failures.delete(address);
    this.events.refusing?.(address, until);
    return until;
  }

  /** The address's own wrong passwords still within the window (the list kept is trimmed to them). */
  private recent(address: string, now: number): number[] {
    const times = this.failures.get(address);
    if (times === undefined) return [];
    while (times.length > 0 && now - times[0]! >= this.windowMs) times.shift();
    return times;
  }
}
