/**
 * When a failed webhook delivery is tried again. The first attempt is made as soon as the event is
 * read; after the n-th failed attempt the next waits RETRY_PAUSES_SECONDS[n - 1]: none after the
 * first (most failures last a moment: a restart, a connection reset), then 5 s, 30 s, 2 min,
 * 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then 8 h after every further failure, each pause lengthened by
 * up to 10% at random (so that endpoints coming back are not hit by every retry at once). Retries
 * stop once WEBHOOK_RETRY_FOR has passed since the delivery was queued: the last attempt is made
 * when it ends, and a delivery that fails then is marked failed.
 */
export const RETRY_PAUSES_SECONDS: readonly number[] = [0, 5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800];

/** The random part of each pause: up to this fraction of it, added. */
export const RETRY_JITTER = 0.1;

/** What becomes of a delivery after a failed attempt. */
export type AfterFailure = { state: 'pending'; delaySeconds: number } | { state: 'failed' };

/**
 * After the `attempts`-th failed attempt (1 for the first), made `ageSeconds` after the delivery
 * was queued: the pause before the next, never past the end of the retry period; or failed, once
 * the period is over. `random` is Math.random by default (tests pass their own).
 */
export function afterFailure(attempts: number, ageSeconds: number, retryForSeconds: number, random: () => number = Math.random): AfterFailure {
  const left = retryForSeconds - ageSeconds;
  if (left <= 0) return { state: 'failed' };
  const base = RETRY_PAUSES_SECONDS[attempts - 1] ?? RETRY_PAUSES_SECONDS[RETRY_PAUSES_SECONDS.length - 1]!;
  return { state: 'pending', delaySeconds: Math.min(base * (1 + RETRY_JITTER * random()), left) };
}
