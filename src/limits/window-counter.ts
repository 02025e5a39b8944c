import type { RateLimitSettings } from '../config/environment.js';
import { setNewest } from './newest-last.js';

/** What one request took from its key's allowance: the requests left in the window (-1: refused, none left) and when the window ends (ms). */
export type Take = readonly [remaining: number, resetAt: number];

interface Window {
  /** When this window ends (ms). */
  resetAt: number;
  /** Requests admitted in it so far. */
  used: number;
}

/** The most keys counted at once: beyond it the key whose window began longest ago is forgotten. */
export const MAX_TRACKED_KEYS = 50_000;

/**
 * Requests per key in fixed windows: a key's window opens with its first request and lasts
 * `windowSeconds`; at most `requests` are admitted in it, and the next request after it ends opens
 * a new one. Refused requests are not counted. Fixed rather than sliding: two numbers per key, and
 * the RateLimit header's `r` and `t` are exact (the allowance returns whole at `t`). The price is
 * that a client may spend two allowances close together across the end of a window.
 *
 * Memory stays bounded under a flood of distinct keys: at most `maxTracked` are counted (about 250
 * bytes each with IPv6 addresses: some 12 MB at the cap), and a new key pushes out the one whose
 * window began longest ago, which starts afresh if it comes back.
 */
export class WindowCounter {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;
  private readonly maxTracked: number;

  constructor(private readonly settings: RateLimitSettings) {
    this.windowMs = settings.windowSeconds * 1000;
    this.maxTracked = settings.testing?.maxTracked ?? MAX_TRACKED_KEYS;
  }

  take(key: string, now = Date.now()): Take {
    let window = this.windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { resetAt: now + this.windowMs, used: 0 };
      // Newest last, so the window that began longest ago is the first forgotten.
      setNewest(this.windows, key, window, this.maxTracked);
    }
    if (window.used >= this.settings.requests) return [-1, window.resetAt];
    window.used++;
    return [this.settings.requests - window.used, window.resetAt];
  }

  /** How many keys are counted now. */
  get tracked(): number {
    return this.windows.size;
  }
}
