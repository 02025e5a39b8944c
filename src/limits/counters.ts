import { FailedAttempts, warnBlocked, type GuessingGuard } from './failed-attempts.js';
import type { GuessingLimits, RateLimitSettings } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import type { RequestCounter } from './rate-limit.js';
import { WindowCounter } from './window-counter.js';

/**
 * Where the service keeps the counts its limits need. One process counts them itself; the workers
 * of WORKERS=N ask their primary (worker-counters.ts), so that a limit holds for the whole service.
 */
export interface Counters {
  /** Wrong list passwords per client address. */
  guessing: GuessingGuard;
  /** Requests per client; undefined while RATE_LIMIT is off. */
  requests: RequestCounter | undefined;
}

/** The counts kept in this process; each address it blocks for guessing is logged. */
export function localCounters(guessing: GuessingLimits, rateLimit: RateLimitSettings | undefined, logger: Logger): Counters {
  return {
    guessing: new FailedAttempts(guessing, warnBlocked(logger, guessing)),
    requests: rateLimit === undefined ? undefined : new WindowCounter(rateLimit),
  };
}
