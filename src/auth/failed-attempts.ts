import type { GuessingLimits } from '../config/environment.js';

interface Attempts {
  /** When the recent wrong passwords came (ms), oldest first; only those within the window are kept. */
  failures: number[];
  /** Refused without a comparison until then (ms); 0 while not blocked. */
  blockedUntil: number;
}

/** The most addresses remembered at once: beyond it the one that failed longest ago is forgotten. */
export const MAX_TRACKED_ADDRESSES = 10_000;

/**
 * Wrong passwords per client address. `maxFailures` of them within the window block the address
 * for one whole window, counted from the failure that reached the limit. Memory stays bounded
 * under a flood of distinct addresses: at most `maxTracked` are remembered, and each holds at
 * most `maxFailures` times.
 */
export class FailedAttempts {
  private readonly byAddress = new Map<string, Attempts>();
  private readonly windowMs: number;
  private readonly maxTracked: number;

  constructor(private readonly limits: GuessingLimits) {
    this.windowMs = limits.windowSeconds * 1000;
    this.maxTracked = limits.testing?.maxTracked ?? MAX_TRACKED_ADDRESSES;
  }

  /** How long (ms) the address must still wait before it may try again; 0 when it may now. */
  blockedForMs(address: string, now = Date.now()): number {
    const attempts = this.byAddress.get(address);
    if (attempts === undefined || attempts.blockedUntil <= now) return 0;
    return attempts.blockedUntil - now;
  }

  recordFailure(address: string, now = Date.now()): void {
    let attempts = this.byAddress.get(address);
    if (attempts === undefined) {
      attempts = { failures: [], blockedUntil: 0 };
      if (this.byAddress.size >= this.maxTracked) this.byAddress.delete(this.byAddress.keys().next().value!);
    } else {
      // Re-inserted, so the Map's order stays "failed longest ago first" for eviction.
      this.byAddress.delete(address);
    }
    this.byAddress.set(address, attempts);
    const recent = attempts.failures.filter((at) => now - at < this.windowMs);
    recent.push(now);
    if (recent.length >= this.limits.maxFailures) {
      attempts.blockedUntil = now + this.windowMs;
      attempts.failures = [];
    } else {
      attempts.failures = recent;
    }
  }

  /** A right password from an address that was not blocked: its earlier mistakes are forgotten. */
  recordSuccess(address: string): void {
    if (this.byAddress.size > 0) this.byAddress.delete(address);
  }

  /** How many addresses are remembered now. */
  get tracked(): number {
    return this.byAddress.size;
  }
}
