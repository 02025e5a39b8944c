import type { StoredEvent } from '../event-log.js';
import type { EndpointRows } from './endpoint-rows.js';
import type { PostResult } from './post.js';
import { afterFailure } from './retry-schedule.js';
import { linkedAbort } from './linked-abort.js';
import { WindowProgress } from './window-progress.js';

/** How often a window's settled events are committed while others are still in flight. */
const CHECKPOINT_MS = 250;

/** The lease may have run out, or another process moved the endpoint's mark: this one must stop delivering. */
export class LostEndpoint extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'LostEndpoint';
  }
}

export interface WindowDeps {
  rows: EndpointRows;
  /** One attempt; `stopped` once `stop` fired or the lease is no longer surely held. */
  send(event: StoredEvent, stop: AbortSignal): Promise<PostResult>;
  retryForSeconds: number;
  /** True while the lease is surely held: required for every commit. */
  held(): boolean;
}

const WAITING_TURN = { kind: 'queued', attempts: 0, error: null, delaySeconds: 0 } as const;

/**
 * Delivers a window of new events (ids after `from`): each user's events one after another in id
 * order, users side by side (send() bounds how many at once). A user with a delivery already
 * pending, or whose delivery fails here, has the rest of its events in the window queued behind
 * it instead. The settled events are committed as they accumulate (mark and queued rows in one
 * transaction). Resolves with the mark committed last; events after it (in flight when `stop`
 * fired) are left for whoever holds the lease next. Throws LostEndpoint when it may not commit.
 */
export async function deliverWindow(deps: WindowDeps, from: number, events: readonly StoredEvent[], stop: AbortSignal): Promise<number> {
  const progress = new WindowProgress(from, events);
  const chains = progress.byUser();
  const pending = await deps.rows.usersWithPending(chains.map((chain) => events[chain[0]!]!.user_id));
  const local = linkedAbort(stop);
  let finished = false;
  const delivered = Promise.all(
    chains.map((chain) => deliverChain(deps, progress, chain, pending.has(events[chain[0]!]!.user_id), local.controller.signal)),
  ).then(() => {
    finished = true;
  });
  try {
    while (!finished) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([delivered, new Promise((resolve) => (timer = setTimeout(resolve, CHECKPOINT_MS)))]);
      clearTimeout(timer);
      await commit(deps, progress);
    }
  } catch (error) {
    // Nothing goes out that could not be committed: the chains stop, and are waited for.
    local.controller.abort();
    await delivered;
    throw error;
  } finally {
    local.dispose();
  }
  await commit(deps, progress);
  return progress.committedThrough;
}

async function deliverChain(deps: WindowDeps, progress: WindowProgress, chain: number[], behind: boolean, stop: AbortSignal): Promise<void> {
  for (const index of chain) {
    if (behind) {
      progress.settle(index, WAITING_TURN);
      continue;
    }
    const result = await deps.send(progress.events[index]!, stop);
    if (result.kind === 'stopped') return;
    if (result.kind === 'acknowledged') {
      progress.settle(index, { kind: 'acknowledged' });
      continue;
    }
    const next = afterFailure(1, 0, deps.retryForSeconds);
    progress.settle(index, { kind: 'queued', attempts: 1, error: result.error, delaySeconds: next.state === 'pending' ? next.delaySeconds : 0 });
    behind = true;
  }
}

async function commit(deps: WindowDeps, progress: WindowProgress): Promise<void> {
  const checkpoint = progress.nextCheckpoint();
  if (checkpoint === undefined) return;
  if (!deps.held()) throw new LostEndpoint('the lease may have expired');
  if (!(await deps.rows.commit(checkpoint.from, checkpoint.through, checkpoint.queued))) {
    throw new LostEndpoint('another process moved the endpoint on');
  }
  progress.committed(checkpoint);
}
