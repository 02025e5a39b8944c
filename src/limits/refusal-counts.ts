import type { Registry } from '../metrics/registry.js';
import type { Counters } from './counters.js';
import type { GuessingGuard } from './failed-attempts.js';
import type { RequestCounter } from './rate-limit.js';
import type { Take } from './window-counter.js';

/** The counters as they were, each refusal also counted in `limits_refusals_total{limit}` (`rate` or `guessing`). */
export function countingRefusals(counters: Counters, registry: Registry): Counters {
  const family = registry.counter('limits_refusals_total', 'Requests refused 429 by a limit: rate (RATE_LIMIT) or guessing (wrong list passwords).', ['limit']);
  const rate = family.labels('rate');
  const guessing = family.labels('guessing');
  const refusedIfWaiting = (waitMs: number): number => {
    if (waitMs > 0) guessing.inc();
    return waitMs;
  };
  const guard: GuessingGuard = {
    blockedForMs: (address) => refusedIfWaiting(counters.guessing.blockedForMs(address)),
    failed: (address) => {
      const verdict = counters.guessing.failed(address);
      return typeof verdict === 'number' ? refusedIfWaiting(verdict) : verdict.then(refusedIfWaiting);
    },
    succeeded: (address) => {
      const verdict = counters.guessing.succeeded(address);
      return typeof verdict === 'number' ? refusedIfWaiting(verdict) : verdict.then(refusedIfWaiting);
    },
  };
  const refusedIfNone = <T extends Take | undefined>(take: T): T => {
    if (take !== undefined && take[0] < 0) rate.inc();
    return take;
  };
  const requests = counters.requests;
  return {
    guessing: guard,
    requests:
      requests &&
      ({
        take: (key) => {
          const take = requests.take(key);
          return take instanceof Promise ? take.then(refusedIfNone) : refusedIfNone(take);
        },
      } satisfies RequestCounter),
  };
}
