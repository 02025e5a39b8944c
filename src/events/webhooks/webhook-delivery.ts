import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import type { WebhookSettings } from '../../config/environment.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../log/logger.js';
import type { EventLog } from '../event-log.js';
import { thisHolder } from '../lease.js';
import { AddressGuard } from './address-guard.js';
import { DeliveryGauges } from './delivery-gauges.js';
import { DeliveryPace } from './delivery-pace.js';
import { Crowding } from './crowding.js';
import { DeliveryTarget } from './delivery-target.js';
import { endpointCounts } from './endpoint-counts.js';
import { EndpointDirectory } from './endpoint-directory.js';
import { endpointKey } from './endpoint-key.js';
import { EndpointWorker, type EndpointOptions } from './endpoint-worker.js';
import { AttemptLog } from './endpoints/attempt-log.js';
import { OutboxWatermark } from './outbox-watermark.js';
import { EndpointStore } from './endpoints/endpoint-store.js';
import type { WebhookObserver } from './metrics.js';
import { shownUrl } from './shown-url.js';

/**
 * What concerns a whole instance is said by one of its processes: the only one, or the first worker
 * of WORKERS=N (a replaced worker gets another id).
 */
const speaksForInstance = !cluster.isWorker || cluster.worker?.id === 1;

/**
 * Every acknowledged change POSTed to each endpoint, signed (Standard Webhooks), at least once and
 * in order per user, off the request path: one EndpointWorker per URL of WEBHOOK_URLS, and one per
 * endpoint made through the API (the directory keeps those in step with the database), every
 * attempt logged; with metrics, the gauges of deliveries left per endpoint.
 */
export class WebhookDelivery {
  private readonly endpoints: EndpointWorker[];
  readonly directory: EndpointDirectory;
  readonly attempts: AttemptLog;
  readonly guard: AddressGuard;
  /** Told by the numbering of this process's own events, at once. */
  readonly watermark: OutboxWatermark;
  private readonly gauges: DeliveryGauges | undefined;
  private readonly crowding: Crowding;
  private checking: Promise<void> | undefined;
  /** Resolves once WEBHOOK_URLS's endpoints are listed (the API waits for it before it lists them). */
  listed: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    log: EventLog,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
    observer: WebhookObserver,
  ) {
    // A holder of its own, not just this process's: two services in one process (tests) must not share leases.
    const holder = `${thisHolder}:${randomBytes(3).toString('hex')}`;
    this.attempts = new AttemptLog(db, logger);
    this.guard = new AddressGuard(settings.allowNetworks);
    this.watermark = new OutboxWatermark(log);
    const common: Omit<EndpointOptions, 'target'> = { db, log, settings, logger, observer, holder, attempts: this.attempts, watermark: this.watermark };
    this.endpoints = settings.urls.map((url) => {
      const target = new DeliveryTarget(endpointKey(url), { url, eventTypes: null, keys: { current: settings.secret! } }, undefined, false);
      return new EndpointWorker({ ...common, target });
    });
    // The API's endpoints, however many, share one pace that yields to requests; WEBHOOK_URLS's keep their own.
    const pace = new DeliveryPace(settings.concurrency);
    this.crowding = new Crowding(pace);
    this.directory = new EndpointDirectory(db, this.guard, (target, stillDelivering) => new EndpointWorker({ ...common, target, stillDelivering, pace }), logger);
    this.gauges = observer.endpoints && new DeliveryGauges(db, observer.endpoints, logger, holder);
  }

  start(): void {
    for (const endpoint of this.endpoints) endpoint.start();
    this.directory.start();
    this.crowding.start();
    this.gauges?.start();
    this.listed = this.listEnvironmentEndpoints();
    if (speaksForInstance) this.checking = this.listed.then(() => this.reportEndpoints()).then(() => this.reportEndpointsLeftBehind());
  }

  async stop(): Promise<void> {
    await Promise.all([...this.endpoints.map((endpoint) => endpoint.stop()), this.directory.stop(), this.gauges?.stop(), this.listed, this.checking]);
    this.watermark.stop();
    this.crowding.stop();
    await this.attempts.flush();
  }

  /** How many endpoints the instance delivers to, once it has read them: one line at start. */
  private async reportEndpoints(): Promise<void> {
    await this.directory.refresh();
    this.logger.info('webhook endpoints', { environment: this.settings.urls.length, api: this.directory.size });
  }

  /** WEBHOOK_URLS's endpoints listed in the API beside its own (`source: "env"`). */
  private async listEnvironmentEndpoints(): Promise<void> {
    try {
      await new EndpointStore(this.db).addFromEnvironment(this.settings.urls);
    } catch (error) {
      this.logger.warn('listing the WEBHOOK_URLS endpoints failed', { reason: (error as Error).message });
    }
  }

  /**
   * Endpoints no longer in WEBHOOK_URLS (here, nor at any running instance) whose deliveries are
   * left: no process retries or gives them up, and the pending ones keep their events from being
   * pruned. One line each, at start, with how many are left and what to do.
   */
  private async reportEndpointsLeftBehind(): Promise<void> {
    const configured = new Set(this.settings.urls.map(endpointKey));
    try {
      for (const { endpoint, url, source, pending, failed, delivered } of await endpointCounts(this.db)) {
        if (source === 'api' || configured.has(endpoint) || delivered || pending + failed === 0) continue;
        this.logger.warn('webhook endpoint not in WEBHOOK_URLS has deliveries left: add it back, or npm run webhooks -- move or drop them', {
          endpoint: shownUrl(url),
          pending,
          failed,
        });
      }
    } catch (error) {
      this.logger.warn('looking for webhook endpoints left behind failed', { reason: (error as Error).message });
    }
  }
}
