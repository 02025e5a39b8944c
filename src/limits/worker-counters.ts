import type { GuessingLimits, RateLimitSettings } from '../config/environment.js';
import type { Counters } from './counters.js';
import { PrimaryLink } from './primary-link.js';
import { SharedAttempts } from './shared-attempts.js';

/** In a worker of WORKERS=N: the limits' counts, kept by the primary (primary-counters.ts) for the whole service. */
export function workerCounters(guessing: GuessingLimits, rateLimit: RateLimitSettings | undefined): Counters {
  const link = new PrimaryLink();
  return {
    guessing: new SharedAttempts(link, guessing),
    requests: rateLimit === undefined ? undefined : { take: (key) => link.ask('take', key) },
  };
}
