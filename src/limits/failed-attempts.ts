import type { GuessingLimits } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { setNewest } from './newest-last.js';

interface Attempts {
  /** When the recent wrong passwords came (ms), oldest first; only those within the window are kept. */
  failures: number[];
  /** Refused without a comparison until then (ms); 0 while not blocked. */
  blockedUntil: number;
}

/**
 * What the list asks about wrong passwords, wherever they are counted: in this process
 * (FailedAttempts), or for the whole service by the primary of several workers
 * (src/limits/shared-attempts.ts). A verdict is a number of ms to wait: 0 lets the request go on;
 * more refuses it with 429 and that Retry-After. Synchronous while it can be answered here.
 */
export interface GuessingGuard {
  /** How long the address must still wait before its password is even compared; 0 when it may try. */
  blockedForMs(address: string): number;
  /** A wrong password from an address not blocked a moment ago: 0 when it was counted (an ordinary refusal), else the wait (blocked meanwhile). */
  failed(address: string): number | Promise<number>;
  /** A right password from an address not blocked a moment ago: 0 lets it through (its mistakes are forgotten), else the wait. */
  succeeded(address: string): number | Promise<number>;
}

/** The most addresses remembered at once: beyond it the one that failed longest ago is forgotten. */
export const MAX_TRACKED_ADDRESSES = 10_000;

/**
 * Wrong passwords per client address. `maxFailures` of them within the window block the address
 * for one whole window, counted from the failure that reached the limit. Memory stays bounded
 * under a flood of distinct addresses: at most `maxTracked` are remembered, and each holds at
 * most `maxFailures` times.
 */
export class FailedAttempts implements GuessingGuard {
  private readonly byAddress = new Map<string, Attempts>();
  private readonly windowMs: number;
  private readonly maxTracked: number;

  /** `onBlocked` is told of each address as the failure that reaches the limit blocks it: once per block. */
  constructor(
    private readonly limits: GuessingLimits,
    private readonly onBlocked?: (address: string) => void,
  ) {
    this.windowMs = limits.windowSeconds * 1000;
    this.maxTracked = limits.testing?.maxTracked ?? MAX_TRACKED_ADDRESSES;
  }

  /** How long (ms) the address must still wait before it may try again; 0 when it may now. */
  blockedForMs(address: string, now = Date.now()): number {
    const attempts = this.byAddress.get(address);
    if (attempts === undefined || attempts.blockedUntil <= now) return 0;
    return attempts.blockedUntil - now;
  }

  /** Counts a wrong password; returns when the address is blocked until (ms) if this one reached the limit, else 0. */
  recordFailure(address: string, now = Date.now()): number {
    const attempts = this.byAddress.get(address) ?? { failures: [], blockedUntil: 0 };
    // Newest last, so the address that failed longest ago is the first forgotten.
    setNewest(this.byAddress, address, attempts, this.maxTracked);
    const recent = attempts.failures.filter((at) => now - at < this.windowMs);
    recent.push(now);
    if (recent.length >= this.limits.maxFailures) {
      attempts.blockedUntil = now + this.windowMs;
      attempts.failures = [];
      this.onBlocked?.(address);
      return attempts.blockedUntil;
    }
    attempts.failures = recent;
    return 0;
  }

  /** A right password from an address that was not blocked: its earlier mistakes are forgotten. */
  recordSuccess(address: string): void {
    if (this.byAddress.size > 0) this.byAddress.delete(address);
  }

  // In one process nothing can happen between the route's blockedForMs and these calls: no second look.
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
    const found: Array<[string, number]> = [];
    for (const [address, attempts] of this.byAddress) if (attempts.blockedUntil > now) found.push([address, attempts.blockedUntil]);
    return found;
  }

  /** How many addresses are remembered now. */
  get tracked(): number {
    return this.byAddress.size;
  }
}

/**
 * The warning line for an address just blocked: where the counts are kept (this process, or the
 * primary of several workers), so it is written once per block, whichever worker saw the failure.
 */
export function warnBlocked(logger: Logger, limits: GuessingLimits): (address: string) => void {
  return (address) =>
    logger.warn('address blocked for guessing the list password', {
      address,
      failures: limits.maxFailures,
      windowS: limits.windowSeconds,
      blockedForS: limits.windowSeconds,
    });
}
