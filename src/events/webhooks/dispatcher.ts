import { setTimeout as sleep } from 'node:timers/promises';
import type { EventLog, StoredEvent } from '../event-log.js';
import type { EndpointRows } from './endpoint-rows.js';
import { linkedAbort } from './linked-abort.js';
import { OpenEvents, type OpenEvent, type Settled } from './open-events.js';
import type { PostResult } from './post.js';
import { afterFailure } from './retry-schedule.js';

/** Events read from the outbox at a time. */
const READ_EVENTS = 200;
/**
 * Events open (read, not yet committed) at most: memory stays bounded whatever the backlog. One
 * slow delivery holds the mark back, not the others: they go on until this many are open.
 */
const MAX_OPEN = 1000;
/** While fewer events than a full read came, the outbox is read this often. */
const POLL_MS = 200;
/**
 * While MAX_OPEN events are open, or READ_EVENTS wait to be sent, the dispatcher reads no more: it
 * waits for an attempt to end (looking no more often than this), or POLL_MS. Events are read about
 * as fast as they are sent: an endpoint waiting its turn for the process's pace holds a few
 * hundred events in memory, not MAX_OPEN.
 */
const FULL_MS = 10;
/**
 * Settled events are committed once this many are, once one failed (its retry waits for the
 * commit) and POLL_MS has passed, or COMMIT_MS after the last commit: a busy endpoint makes room
 * quickly, and a hundred endpoints do not each commit a few events five times a second. After a
 * crash, what settled since the last commit is sent again (at least once).
 */
const COMMIT_EVENTS = MAX_OPEN / 4;
const COMMIT_MS = 1000;

/** The lease may have run out, or another process moved the endpoint's mark: this one must stop delivering. */
export class LostEndpoint extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'LostEndpoint';
  }
}

export interface DispatchDeps {
  log: EventLog;
  rows: EndpointRows;
  /** One attempt; `stopped` once `stop` fired or the lease is no longer surely held. */
  send(event: StoredEvent, stop: AbortSignal): Promise<PostResult>;
  /** Whether the endpoint takes this event's type now: one it does not is passed over as if acknowledged. */
  takes(event: StoredEvent): boolean;
  retryForSeconds: number;
  /** True while the lease is surely held: required for every commit. */
  held(): boolean;
  /** False when the outbox surely has no event after this id (OutboxWatermark): it is not read then. */
  hasAfter?(id: number): boolean;
}

/** One user's events being delivered, one after another. */
interface Lane {
  user: number;
  queue: OpenEvent[];
  busy: boolean;
  /** A delivery of this user is pending (in the table, or failed here): its next events queue behind it. */
  blocked: boolean;
  /** Its events still open: the lane is forgotten once none are and it is idle. */
  open: number;
}

const WAITING_TURN: Settled = { kind: 'queued', attempts: 0, error: null, delaySeconds: 0 };
const PASSED_OVER: Settled = { kind: 'acknowledged' };

/**
 * New events to one endpoint, from its mark on: each user's events one after another in id order
 * (a lane per user), users side by side (send() bounds how many at once). A user with a delivery
 * already pending, or whose delivery fails here, has its next events queued behind it instead.
 * Settled events are committed as they accumulate: the mark and the queued rows in one
 * transaction (see OpenEvents for how far the mark moves).
 */
export class Dispatcher {
  private readonly open: OpenEvents;
  private readonly lanes = new Map<number, Lane>();
  private readonly running = new Set<Promise<void>>();
  private committedAt = performance.now();
  /** Events in the lanes' queues, not yet attempted (or in flight). */
  private unsent = 0;
  /** An attempt has ended since the dispatcher last waited for one (it waits for one when full). */
  private attemptEnded = false;
  private onEnded: (() => void) | undefined;

  constructor(
    private readonly deps: DispatchDeps,
    through: number,
  ) {
    this.open = new OpenEvents(through);
  }

  /**
   * Delivers until `stop` fires, then commits what was settled (events in flight are left for
   * whoever holds the lease next). Throws LostEndpoint when it may not commit, having stopped
   * every delivery first.
   */
  async run(stop: AbortSignal): Promise<void> {
    const local = linkedAbort(stop);
    const signal = local.controller.signal;
    try {
      while (!signal.aborted) {
        const room = this.unsent >= READ_EVENTS ? 0 : MAX_OPEN - this.open.size;
        const fresh = this.deps.hasAfter?.(this.open.readThrough) ?? true;
        const events = room > 0 && fresh ? await this.deps.log.after(this.open.readThrough, Math.min(READ_EVENTS, room)) : [];
        if (events.length > 0) await this.add(events, signal);
        await this.commit();
        if (room === 0) await this.attemptsEnded(signal);
        else if (events.length < READ_EVENTS) await sleep(POLL_MS, undefined, { signal }).catch(() => {});
      }
    } catch (error) {
      local.controller.abort();
      throw error;
    } finally {
      // Nothing goes out that could not be committed: every lane has stopped before this returns.
      await Promise.allSettled(this.running);
      local.dispose();
    }
    await this.commit(true);
  }

  private async add(events: readonly StoredEvent[], stop: AbortSignal): Promise<void> {
    const added = this.open.add(events);
    const newcomers = [...new Set(events.map((event) => event.user_id))].filter((user) => !this.lanes.has(user));
    const pending = await this.deps.rows.usersWithPending(newcomers);
    for (const user of newcomers) this.lanes.set(user, { user, queue: [], busy: false, blocked: pending.has(user), open: 0 });
    for (const entry of added) {
      const lane = this.lanes.get(entry.event.user_id)!;
      lane.open++;
      if (!this.deps.takes(entry.event)) entry.outcome = PASSED_OVER;
      else if (lane.blocked) entry.outcome = WAITING_TURN;
      else this.enqueue(lane, entry, stop);
    }
  }

  /** Resolves once an attempt has ended since it last did (looking every FULL_MS at most), or after POLL_MS, or on stop. */
  private async attemptsEnded(stop: AbortSignal): Promise<void> {
    await sleep(FULL_MS, undefined, { signal: stop }).catch(() => {});
    if (!this.attemptEnded && !stop.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          stop.removeEventListener('abort', done);
          this.onEnded = undefined;
          resolve();
        };
        const timer = setTimeout(done, POLL_MS);
        stop.addEventListener('abort', done, { once: true });
        this.onEnded = done;
      });
    }
    this.attemptEnded = false;
  }

  private attempted(): void {
    this.unsent--;
    this.attemptEnded = true;
    this.onEnded?.();
  }

  private enqueue(lane: Lane, entry: OpenEvent, stop: AbortSignal): void {
    this.unsent++;
    lane.queue.push(entry);
    if (lane.busy) return;
    lane.busy = true;
    const task = this.drain(lane, stop).finally(() => {
      lane.busy = false;
      this.running.delete(task);
      if (lane.open === 0) this.forget(lane);
    });
    this.running.add(task);
  }

  /** Sends the lane's events in order; after a failure the rest queue behind it. */
  private async drain(lane: Lane, stop: AbortSignal): Promise<void> {
    while (lane.queue.length > 0) {
      const entry = lane.queue[0]!;
      const result = await this.deps.send(entry.event, stop);
      if (result.kind === 'stopped') return;
      lane.queue.shift();
      this.attempted();
      if (result.kind === 'acknowledged') {
        entry.outcome = { kind: 'acknowledged' };
        continue;
      }
      const next = afterFailure(1, 0, this.deps.retryForSeconds);
      entry.outcome = { kind: 'queued', attempts: 1, error: result.error, delaySeconds: next.state === 'pending' ? next.delaySeconds : 0 };
      lane.blocked = true;
      for (const behind of lane.queue) behind.outcome = WAITING_TURN;
      this.unsent -= lane.queue.length;
      lane.queue = [];
    }
  }

  /** Commits the settled events from the first when it is time (see COMMIT_EVENTS), or now when `now`. */
  private async commit(now = false): Promise<void> {
    const checkpoint = this.open.nextCheckpoint();
    if (checkpoint === undefined) return;
    const waited = performance.now() - this.committedAt;
    const due = now || checkpoint.count >= COMMIT_EVENTS || waited >= COMMIT_MS || (checkpoint.queued.length > 0 && waited >= POLL_MS);
    if (!due) return;
    this.committedAt = performance.now();
    if (!this.deps.held()) throw new LostEndpoint('the lease may have expired');
    if (!(await this.deps.rows.commit(checkpoint.from, checkpoint.through, checkpoint.queued))) {
      throw new LostEndpoint('another process moved the endpoint on');
    }
    for (const { event } of this.open.committed(checkpoint)) {
      const lane = this.lanes.get(event.user_id)!;
      if (--lane.open === 0 && !lane.busy) this.forget(lane);
    }
  }

  /** A lane with nothing open is forgotten: a delivery pending that held it back is in the table now. */
  private forget(lane: Lane): void {
    if (this.lanes.get(lane.user) === lane) this.lanes.delete(lane.user);
  }
}
