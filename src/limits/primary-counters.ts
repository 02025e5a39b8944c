import cluster, { type Worker } from 'node:cluster';
import { FailedAttempts, warnBlocked } from './failed-attempts.js';
import type { DbConfig, GuessingLimits, RateLimitSettings, SharedLimitSettings } from '../config/environment.js';
import type { PoolTuning } from '../db/pool-tuning.js';
import type { Logger } from '../log/logger.js';
import type { Registry } from '../metrics/registry.js';
import type { BlockedPush, CountAnswer, CountAsk, CountResult, Incoming } from './messages.js';
import { sharedLimits } from './shared/shared-limits.js';
import type { Take } from './window-counter.js';
import { WindowCounter } from './window-counter.js';
import { tellWorker } from '../ipc/tell-worker.js';

const GO_ON: CountResult = [0, 0];

/** The primary's counts of wrong passwords: in this process (FailedAttempts), or shared with other instances (SharedFailures). */
interface AttemptCounts {
  blockedForMs(address: string, now: number): number;
  recordFailure(address: string, now: number): number;
  recordSuccess(address: string): void;
  blocked(): Array<[string, number]>;
}

/** The counts' sync with other instances (LIMITS_SHARED=on), started once the schema is in place. */
export interface PrimaryLimits {
  start(): void;
  stop(): Promise<void>;
}

export interface SharedCounting {
  db: DbConfig;
  tuning: PoolTuning;
  settings: SharedLimitSettings;
  /** The primary's own figures on `/metrics` (the sync's). */
  metrics?: Registry;
}

/**
 * In the primary of WORKERS=N: keeps the counts of the guessing limit and RATE_LIMIT for every
 * worker (see messages.ts), so that each limit holds for the whole service; with `shared`
 * (LIMITS_SHARED=on), for every instance on the database too. Memory is bounded as in one
 * process: each counter forgets its oldest entry at its cap. Each block is logged here, once,
 * however many workers saw the address fail.
 */
export function serveCounters(guessing: GuessingLimits, rateLimit: RateLimitSettings | undefined, logger: Logger, shared?: SharedCounting): PrimaryLimits {
  const tellAll = (blocked: BlockedPush['blocked']): void => {
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (worker) tellWorker(worker, { type: 'limits:blocked', blocked } satisfies BlockedPush);
    }
  };
  let attempts: AttemptCounts;
  let requests: { take(key: string, now: number): Take } | undefined;
  let limits: PrimaryLimits = { start: () => {}, stop: async () => {} };
  if (shared === undefined) {
    attempts = new FailedAttempts(guessing, warnBlocked(logger, guessing));
    requests = rateLimit === undefined ? undefined : new WindowCounter(rateLimit);
  } else {
    // Blocks (and holds) made here or learned from other instances reach every worker at once.
    const counts = sharedLimits({ db: shared.db, tuning: shared.tuning, logger, guessing, rateLimit, settings: shared.settings, refusing: (address, until) => tellAll([[address, until]]) });
    if (shared.metrics) counts.registerMetrics(shared.metrics);
    attempts = counts.guessing;
    requests = counts.requests;
    limits = counts;
  }

  const count = (op: unknown, key: unknown, now: number, newlyBlocked: BlockedPush['blocked']): CountResult | null => {
    if (typeof key !== 'string') return null;
    if (op === 'take') return requests ? requests.take(key, now) : null;
    if (op !== 'fail' && op !== 'pass') return null;
    const waitMs = attempts.blockedForMs(key, now);
    if (waitMs > 0) return [now + waitMs, 0];
    if (op === 'pass') {
      attempts.recordSuccess(key);
      return GO_ON;
    }
    const until = attempts.recordFailure(key, now);
    if (until > 0 && shared === undefined) newlyBlocked.push([key, until]);
    return GO_ON;
  };

  cluster.on('message', (worker: Worker, message: Incoming) => {
    if (message?.type === 'limits:hello') {
      const blocked = attempts.blocked();
      if (blocked.length > 0) tellWorker(worker, { type: 'limits:blocked', blocked } satisfies BlockedPush);
      return;
    }
    if (message?.type !== 'limits:ask' || typeof message.id !== 'number' || !Array.isArray(message.calls)) return;
    const now = Date.now();
    const newlyBlocked: BlockedPush['blocked'] = [];
    const results = (message as CountAsk).calls.map((call) => (Array.isArray(call) ? count(call[0], call[1], now, newlyBlocked) : null));
    // Every worker hears of a block before the asker gets the answer that caused it.
    if (newlyBlocked.length > 0) tellAll(newlyBlocked);
    tellWorker(worker, { type: 'limits:answer', id: message.id, results } satisfies CountAnswer);
  });
  return limits;
}
