import type { DbConfig, GuessingLimits, RateLimitSettings, SharedLimitSettings } from '../../config/environment.js';
import { LimitCounts } from '../../db/limit-counts.js';
import { defaultTuning, type PoolTuning } from '../../db/pool-tuning.js';
import type { Logger } from '../../log/logger.js';
import type { Registry } from '../../metrics/registry.js';
import { warnBlocked } from '../failed-attempts.js';
import { LimitSync } from './limit-sync.js';
import { SharedFailures } from './shared-failures.js';
import { SharedRequests } from './shared-requests.js';

export interface SharedLimitsOptions {
  db: DbConfig;
  tuning?: PoolTuning;
  logger: Logger;
  guessing: GuessingLimits;
  rateLimit: RateLimitSettings | undefined;
  settings: SharedLimitSettings;
  /** An address is refused until then: the primary of several workers tells them. */
  refusing?(address: string, until: number): void;
}

/** Both limits counted for every instance on the database (LIMITS_SHARED=on), and the sync that shares them. */
export interface SharedLimits {
  guessing: SharedFailures;
  requests: SharedRequests | undefined;
  /** Syncs from now on: once the schema (its limit_counts table) is in place. */
  start(): void;
  stop(): Promise<void>;
  /** The sync's figures on `/metrics`. */
  registerMetrics(registry: Registry): void;
}

export function sharedLimits(options: SharedLimitsOptions): SharedLimits {
  const { settings, logger } = options;
  const counts = new LimitCounts(options.db, options.tuning ?? defaultTuning, logger);
  let sync: LimitSync | undefined = undefined;
  const peers = () => sync!.view();
  const log = warnBlocked(logger, options.guessing);
  const guessing = new SharedFailures(options.guessing, settings.syncMs, peers, {
    blocked: log,
    ...(options.refusing ? { refusing: options.refusing } : {}),
  });
  const requests = options.rateLimit && new SharedRequests(options.rateLimit, settings.syncMs, peers);
  sync = new LimitSync(counts, requests ? [requests, guessing] : [guessing], settings.syncMs, logger);
  const figures = sync.figures;
  return {
    guessing,
    requests,
    start: () => sync.start(),
    stop: async () => {
      await sync.stop();
      await counts.close();
    },
    registerMetrics: (registry) => {
      registry.collected('gauge', 'limits_sync_age_seconds', 'Seconds since the shared limits last synced with the database (-1 before the first sync)', () =>
        figures.lastSyncAt === 0 ? -1 : (Date.now() - figures.lastSyncAt) / 1000, 'max');
      registry.collected('gauge', 'limits_shared_instances', 'Instances counting the shared limits, as the last sync saw them', () => sync.view().live, 'max');
      registry.collected('counter', 'limits_sync_failures_total', 'Syncs of the shared limits that failed (counted alone meanwhile)', () => figures.failures);
      registry.collected('counter', 'limits_sync_statements_total', 'Round trips the shared limits made to the database', () => figures.statements);
    },
  };
}
