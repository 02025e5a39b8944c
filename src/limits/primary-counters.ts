import cluster, { type Worker } from 'node:cluster';
import { FailedAttempts, warnBlocked } from './failed-attempts.js';
import type { GuessingLimits, RateLimitSettings } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import type { BlockedPush, CountAnswer, CountAsk, CountResult, Incoming } from './messages.js';
import { WindowCounter } from './window-counter.js';
import { tellWorker } from '../ipc/tell-worker.js';

const GO_ON: CountResult = [0, 0];

/**
 * In the primary of WORKERS=N: keeps the counts of the guessing limit and RATE_LIMIT for every
 * worker (see messages.ts), so that each limit holds for the whole service. Memory is bounded as in
 * one process: FailedAttempts and WindowCounter each forget their oldest entry at their cap.
 * Each block is logged here, once, however many workers saw the address fail.
 */
export function serveCounters(guessing: GuessingLimits, rateLimit: RateLimitSettings | undefined, logger: Logger): void {
  const attempts = new FailedAttempts(guessing, warnBlocked(logger, guessing));
  const requests = rateLimit === undefined ? undefined : new WindowCounter(rateLimit);

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
    if (until > 0) newlyBlocked.push([key, until]);
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
    if (newlyBlocked.length > 0) {
      for (const other of Object.values(cluster.workers ?? {})) {
        if (other) tellWorker(other, { type: 'limits:blocked', blocked: newlyBlocked } satisfies BlockedPush);
      }
    }
    tellWorker(worker, { type: 'limits:answer', id: message.id, results } satisfies CountAnswer);
  });
}
