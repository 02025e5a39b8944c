import { setTimeout as sleep } from 'node:timers/promises';
import type { WebhookSettings } from '../../config/environment.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../log/logger.js';
import type { EventLog, StoredEvent } from '../event-log.js';
import { Lease } from '../lease.js';
import type { DeliveryTarget } from './delivery-target.js';
import type { AttemptLog } from './endpoints/attempt-log.js';
import { EndpointHealth } from './endpoint-health.js';
import { endpointLease } from './endpoint-key.js';
import { EndpointRows } from './endpoint-rows.js';
import { FailingMark } from './failing-mark.js';
import type { OutboxWatermark } from './outbox-watermark.js';
import { linkedAbort } from './linked-abort.js';
import type { WebhookObserver } from './metrics.js';
import { endpointAgents, type EndpointAgents, type PostResult } from './post.js';
import { retryDue, type RetryDeps } from './retries.js';
import { Sender } from './sender.js';
import { shownUrl } from './shown-url.js';
import { Slots } from '../../load/slots.js';
import type { DeliveryPace } from './delivery-pace.js';
import { Dispatcher, LostEndpoint, type DispatchDeps } from './dispatcher.js';

/** A killed holder's lease runs out this soon, and another process takes over. */
const LEASE_SECONDS = 15;
/** The holder renews this often: held() (two thirds of the lease) survives two failed renewals. */
const RENEW_MS = 3000;
/** How often the holder checks that it still surely holds the lease, and stops delivering if not. */
const GUARD_MS = 500;
/** Processes waiting for the lease look this often (give or take a third, so they spread out). */
const LEASE_POLL_MS = 1500;
/** The holder looks for retries due this often while none are. */
const RETRY_POLL_MS = 1000;
/** How often the holder looks for deliveries left waiting behind nothing (a safety net; none are expected). */
const STRANDED_CHECK_MS = 60_000;
/** Deliveries left waiting behind nothing made due at a time. */
const STRANDED_BATCH = 200;
/** How often, at most, the holder of a failing API endpoint checks whether it has failed for WEBHOOK_DISABLE_AFTER. */
const DISABLE_CHECK_MS = 60_000;

const STOPPED: PostResult = { kind: 'stopped' };

export interface EndpointOptions {
  db: Database;
  log: EventLog;
  target: DeliveryTarget;
  settings: WebhookSettings;
  logger: Logger;
  observer: WebhookObserver;
  attempts: AttemptLog;
  /** Who holds the lease when this worker does (see WebhookDelivery). */
  holder: string;
  /** The process's last event id, shared by its endpoints: the outbox is read only when it has moved. */
  watermark?: OutboxWatermark;
  /** The process's places for attempts at work, shared by its endpoints. */
  pace?: DeliveryPace;
  /**
   * An API endpoint's settings as stored now: read after each take-over, so a process that has
   * not yet seen the endpoint disabled or removed gives the lease back without sending anything.
   */
  stillDelivering?: () => Promise<boolean>;
}

/**
 * Delivery to one endpoint, from whichever process holds its lease (`webhook:<key>`): every
 * worker of every instance runs one of these per endpoint, and all but one wait. The holder runs
 * two loops side by side, sharing WEBHOOK_CONCURRENCY: new events from the outbox
 * (dispatcher.ts), and the pending deliveries as they fall due (retries.ts). It stops
 * delivering as soon as it is not sure to hold the lease any more; on stop() it gives it up.
 */
export class EndpointWorker {
  private readonly lease: Lease;
  private readonly rows: EndpointRows;
  private readonly sender: Sender;
  private readonly health: EndpointHealth;
  private readonly mark: FailingMark;
  /** This endpoint's own connections, kept between attempts. */
  private readonly agents: EndpointAgents;
  private readonly slots: Slots;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  /** The URL as logs show it: without its query, which may carry a token. */
  private readonly shown: string;

  constructor(private readonly options: EndpointOptions) {
    const { db, target, settings, logger, observer, attempts } = options;
    this.lease = new Lease(db, endpointLease(target.key), LEASE_SECONDS, options.holder);
    this.rows = new EndpointRows(db, options.log, target.key, target.url);
    this.shown = shownUrl(target.url);
    this.health = new EndpointHealth(this.shown, logger);
    this.mark = new FailingMark(db, target.key, logger);
    this.agents = endpointAgents(settings.concurrency);
    this.sender = new Sender(target, settings.timeoutSeconds * 1000, { observer, health: this.health, mark: this.mark, attempts }, this.agents);
    this.slots = new Slots(settings.concurrency);
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops delivering (requests in flight are cut: they are sent again later), commits what was settled, gives the lease up. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async run(): Promise<void> {
    const stop = this.stopping.signal;
    while (!stop.aborted) {
      if (!(await this.lease.heldElsewhere()) && (await this.lease.take())) {
        if (await this.stillDelivering()) await this.hold();
        else await this.lease.release();
      }
      await pause(LEASE_POLL_MS * (2 / 3 + (2 / 3) * Math.random()), stop);
    }
  }

  /** Delivers while the lease is surely held and nothing failed. */
  private async hold(): Promise<void> {
    const { controller, dispose } = linkedAbort(this.stopping.signal);
    let renewing: Promise<void> | undefined;
    let renewedAt = performance.now();
    const guard = setInterval(() => {
      if (!this.lease.held()) controller.abort();
      else if (renewing === undefined && performance.now() - renewedAt >= RENEW_MS) {
        renewedAt = performance.now();
        renewing = this.lease.take().then((ok) => {
          if (!ok) controller.abort();
          renewing = undefined;
        });
      }
    }, GUARD_MS);
    const disabling = this.disableWhenFailing(controller);
    let failure: unknown;
    const fail = (error: unknown): void => {
      failure ??= error;
      controller.abort();
    };
    const send = this.guardedSend(controller);
    try {
      await Promise.all([this.dispatch(send, controller.signal).catch(fail), this.retry(send, controller.signal).catch(fail)]);
    } finally {
      clearInterval(guard);
      clearInterval(disabling);
      dispose();
      await renewing;
      this.health.forget();
      this.mark.forget();
    }
    if (failure instanceof LostEndpoint) this.options.logger.info('webhook endpoint left to another process', { endpoint: this.shown, reason: failure.message });
    else if (failure !== undefined) this.options.logger.warn('webhook delivery interrupted, resuming shortly', { endpoint: this.shown, reason: (failure as Error).message });
    if (this.stopping.signal.aborted) await this.lease.release();
  }

  /** False for an API endpoint disabled or removed meanwhile (a failed read counts as false: the lease is tried again later). */
  private async stillDelivering(): Promise<boolean> {
    return this.options.stillDelivering === undefined || (await this.options.stillDelivering().catch(() => false));
  }

  /**
   * WEBHOOK_DISABLE_AFTER: while holding an API endpoint's lease, checks now and then whether every
   * attempt has failed for that long, and if so stops delivering, the endpoint disabled.
   */
  private disableWhenFailing(controller: AbortController): NodeJS.Timeout | undefined {
    const seconds = this.options.settings.disableAfterSeconds;
    if (!this.options.target.managed || seconds === undefined) return undefined;
    let checking = false;
    return setInterval(async () => {
      if (checking) return;
      checking = true;
      if (await this.mark.disableIfFailingFor(seconds)) {
        this.options.observer.autoDisabled();
        this.options.logger.warn('webhook endpoint disabled: every attempt failed for WEBHOOK_DISABLE_AFTER', { endpoint: this.shown, failingForSeconds: seconds });
        controller.abort();
      }
      checking = false;
    }, Math.min(DISABLE_CHECK_MS, Math.max(500, (seconds * 1000) / 4)));
  }

  /** An attempt in one of the endpoint's slots and a place of the process's pace, made only while the lease is surely held. */
  private guardedSend(controller: AbortController): DispatchDeps['send'] {
    const attempt = async (event: StoredEvent, stop: AbortSignal): Promise<PostResult> => {
      if (this.lease.held()) return this.sender.send(event, stop);
      controller.abort();
      return STOPPED;
    };
    const { pace } = this.options;
    return (event, stop) => this.slots.run(() => (pace ? pace.run(() => attempt(event, stop)) : attempt(event, stop)));
  }

  private async dispatch(send: DispatchDeps['send'], stop: AbortSignal): Promise<void> {
    const { target } = this.options;
    const deps: DispatchDeps = {
      log: this.options.log,
      rows: this.rows,
      send,
      takes: (event) => target.takes(event.type),
      retryForSeconds: this.options.settings.retryForSeconds,
      held: () => this.lease.held(),
      ...(this.options.watermark ? { hasAfter: this.options.watermark.hasAfter.bind(this.options.watermark) } : {}),
    };
    const through = await this.rows.open();
    this.options.logger.info('delivering to webhook endpoint', { endpoint: this.shown, fromEventId: through + 1 });
    await this.warnIfPruned(through);
    await new Dispatcher(deps, through).run(stop);
  }

  private async retry(send: RetryDeps['send'], stop: AbortSignal): Promise<void> {
    const deps: RetryDeps = {
      rows: this.rows,
      send,
      retryForSeconds: this.options.settings.retryForSeconds,
      gaveUp: (due, error) => {
        this.options.observer.gaveUp();
        this.options.logger.warn('webhook delivery failed, giving up', {
          endpoint: this.shown,
          eventId: due.eventId,
          attempts: due.attempts + 1,
          lastError: error,
          retryForSeconds: this.options.settings.retryForSeconds,
        });
      },
    };
    let checkedAt = -Infinity;
    while (!stop.aborted) {
      if (performance.now() - checkedAt >= STRANDED_CHECK_MS) {
        checkedAt = performance.now();
        const woken = await this.rows.wakeStranded(STRANDED_BATCH);
        if (woken > 0) this.options.logger.warn('webhook deliveries found waiting behind nothing, made due', { endpoint: this.shown, count: woken });
      }
      // A full batch means more may be due: the next is asked for at once.
      if ((await retryDue(deps, this.options.settings.concurrency, stop)) === 0) await pause(RETRY_POLL_MS, stop);
    }
  }

  /** Events pruned (EVENTS_RETENTION) before they were queued for this endpoint are lost to it: said once per take-over. */
  private async warnIfPruned(through: number): Promise<void> {
    const pruned = await this.options.log.prunedThrough();
    if (pruned > through) {
      this.options.logger.warn('events were pruned before delivery to a webhook endpoint', { endpoint: this.shown, fromId: through + 1, throughId: pruned });
    }
  }
}

/** Resolves after `ms`, or at once when `stop` fires. */
async function pause(ms: number, stop: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal: stop }).catch(() => {});
}
