import { ConfigError, oneOf, positive, text, type Env } from './env-values.js';

/** Without AUTH_MAX_FAILURES and AUTH_WINDOW_S: 10 wrong passwords within 60 s block an address. */
export const DEFAULT_GUESSING_LIMITS = { maxFailures: 10, windowSeconds: 60 } as const;

export interface GuessingLimits {
  /** Wrong passwords from one address within the window that block it. */
  maxFailures: number;
  windowSeconds: number;
  /** Tests only; never read from the environment. */
  testing?: {
    /** Addresses remembered at once, made small to show the bound. */
    maxTracked?: number;
  };
}

/** `RATE_LIMIT=100/10s`: at most `requests` API requests per client within each window. */
export interface RateLimitSettings {
  requests: number;
  windowSeconds: number;
  /** Tests only; never read from the environment. */
  testing?: {
    /** Clients counted at once, made small to show the bound. */
    maxTracked?: number;
  };
}

/** AUTH_MAX_FAILURES and AUTH_WINDOW_S. */
export function guessingLimits(env: Env): GuessingLimits {
  return {
    maxFailures: positive(env, 'AUTH_MAX_FAILURES', DEFAULT_GUESSING_LIMITS.maxFailures),
    windowSeconds: positive(env, 'AUTH_WINDOW_S', DEFAULT_GUESSING_LIMITS.windowSeconds),
  };
}

const WINDOW_UNITS = { s: 1, m: 60, h: 3600 } as const;

/** `<requests>/<window>`, the window a whole number of s, m or h (`100/10s`, `600/m`); `off` or unset: no limit. */
export function rateLimit(env: Env): RateLimitSettings | undefined {
  const raw = text(env, 'RATE_LIMIT', 'off');
  if (raw === 'off') return undefined;
  const match = /^([1-9]\d{0,8})\/([1-9]\d{0,5})?([smh])$/.exec(raw);
  if (!match) throw new ConfigError(`RATE_LIMIT must be requests per window such as 100/10s, 600/m or 5000/1h (or off), got "${raw}"`);
  return { requests: Number(match[1]), windowSeconds: Number(match[2] ?? 1) * WINDOW_UNITS[match[3] as keyof typeof WINDOW_UNITS] };
}

/** LIMITS_SHARED=on: both limits counted for every instance on the database, synced every `syncMs`. */
export interface SharedLimitSettings {
  syncMs: number;
}

/** Without LIMITS_SYNC_MS: twice a second. */
export const DEFAULT_LIMITS_SYNC_MS = 500;

/** LIMITS_SHARED (on by default when DB_HOST lists several servers, off for one) and LIMITS_SYNC_MS (50-60 000). */
export function sharedLimits(env: Env, clustered: boolean): SharedLimitSettings | undefined {
  const shared = oneOf(env, 'LIMITS_SHARED', ['on', 'off'], clustered ? 'on' : 'off') === 'on';
  const raw = text(env, 'LIMITS_SYNC_MS', String(DEFAULT_LIMITS_SYNC_MS));
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 50 || Number(raw) > 60_000) {
    throw new ConfigError(`LIMITS_SYNC_MS must be a whole number of milliseconds from 50 to 60000, got "${raw}"`);
  }
  return shared ? { syncMs: Number(raw) } : undefined;
}
