import type { StoredEvent } from '../event-log.js';
import type { Due, EndpointRows } from './endpoint-rows.js';
import type { PostResult } from './post.js';
import { afterFailure } from './retry-schedule.js';

export interface RetryDeps {
  rows: EndpointRows;
  send(event: StoredEvent, stop: AbortSignal): Promise<PostResult>;
  retryForSeconds: number;
  /** A delivery was marked failed (to log and count). */
  gaveUp(due: Due, error: string): void;
}

/** Said of a delivery whose event is no longer in the outbox (pruned after a resend, say). */
const PRUNED = 'the event is no longer stored (pruned)';

/**
 * One pass over the pending deliveries due now: up to `limit`, each its user's oldest, tried side
 * by side (distinct users, so order per user holds). Acknowledged ones are removed; failed ones
 * wait per the retry schedule, or are marked failed once the retry period is over. Resolves with
 * how many were due: as many as `limit` means more may be.
 */
export async function retryDue(deps: RetryDeps, limit: number, stop: AbortSignal): Promise<number> {
  const due = await deps.rows.due(limit);
  // Every attempt has ended before this returns, even when one failed: none may outlive the lease.
  const failure = (await Promise.allSettled(due.map((one) => retryOne(deps, one, stop)))).find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return due.length;
}

async function retryOne(deps: RetryDeps, due: Due, stop: AbortSignal): Promise<void> {
  if (due.event === undefined) {
    await deps.rows.giveUp(due, PRUNED);
    deps.gaveUp(due, PRUNED);
    return;
  }
  const started = performance.now();
  const result = await deps.send(due.event, stop);
  if (result.kind === 'stopped') return;
  if (result.kind === 'acknowledged') return deps.rows.delivered(due);
  const age = due.ageSeconds + (performance.now() - started) / 1000;
  const next = afterFailure(due.attempts + 1, age, deps.retryForSeconds);
  if (next.state === 'pending') return deps.rows.retryLater(due, result.error, next.delaySeconds);
  await deps.rows.giveUp(due, result.error);
  deps.gaveUp(due, result.error);
}
