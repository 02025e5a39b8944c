import { DEFAULT_GUESSING_LIMITS, type DbConfig, type GuessingLimits, type RateLimitSettings, type SharedLimitSettings } from '../config/environment.js';
import type { PoolTuning } from '../db/pool-tuning.js';
import type { Logger } from '../log/logger.js';
import type { Registry } from '../metrics/registry.js';
import { localCounters, type Counters } from './counters.js';
import { countingRefusals } from './refusal-counts.js';
import { sharedLimits } from './shared/shared-limits.js';

/** The limits of one app: where they are counted, and the sync that shares them (LIMITS_SHARED=on in one process). */
export interface AppLimits {
  counters: Counters;
  /** The schema is in place: shared limits start syncing. */
  start(): void;
  stop(): Promise<void>;
}

/** The app's options these come from (AppOptions' fields of the same names). */
export interface AppLimitsOptions {
  db: DbConfig;
  logger: Logger;
  /** 10 wrong passwords within 60 s by default. */
  guessing?: GuessingLimits;
  rateLimit?: RateLimitSettings;
  /** Counted elsewhere: by the primary of several workers. */
  counters?: Counters;
  /** LIMITS_SHARED=on, counted here (one process): synced with every other instance. */
  sharedLimits?: SharedLimitSettings;
}

/** `metrics`: refusals, and the shared limits' sync, on `/metrics`. */
export function appLimits(options: AppLimitsOptions, tuning: PoolTuning, metrics?: Registry): AppLimits {
  const { logger } = options;
  const guessing = options.guessing ?? DEFAULT_GUESSING_LIMITS;
  const counted = (counters: Counters): Counters => (metrics ? countingRefusals(counters, metrics) : counters);
  if (options.counters !== undefined || options.sharedLimits === undefined) {
    const counters = options.counters ?? localCounters(guessing, options.rateLimit, logger);
    return { counters: counted(counters), start: () => {}, stop: async () => {} };
  }
  const shared = sharedLimits({ db: options.db, tuning, logger, guessing, rateLimit: options.rateLimit, settings: options.sharedLimits });
  if (metrics) shared.registerMetrics(metrics);
  return { counters: counted({ guessing: shared.guessing, requests: shared.requests }), start: shared.start, stop: shared.stop };
}
