import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import type { WebhookSettings } from '../../config/environment.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../log/logger.js';
import type { EventLog } from '../event-log.js';
import { thisHolder } from '../lease.js';
import { DeliveryGauges } from './delivery-gauges.js';
import { endpointCounts } from './endpoint-counts.js';
import { endpointKey, EndpointWorker } from './endpoint-worker.js';
import type { WebhookObserver } from './metrics.js';
import { shownUrl } from './shown-url.js';

/**
 * What concerns a whole instance is said by one of its processes: the only one, or the first worker
 * of WORKERS=N (a replaced worker gets another id).
 */
const speaksForInstance = !cluster.isWorker || cluster.worker?.id === 1;

/**
 * WEBHOOK_URLS: every acknowledged change POSTed to each URL, signed (Standard Webhooks), at least
 * once and in order per user, off the request path. One EndpointWorker per URL; with metrics, the
 * gauges of deliveries left per endpoint.
 */
export class WebhookDelivery {
  private readonly endpoints: EndpointWorker[];
  private readonly gauges: DeliveryGauges | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    log: EventLog,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
    observer: WebhookObserver,
  ) {
    // A holder of its own, not just this process's: two services in one process (tests) must not share leases.
    const holder = `${thisHolder}:${randomBytes(3).toString('hex')}`;
    this.endpoints = settings.urls.map((url) => new EndpointWorker({ db, log, url, settings, logger, observer, holder }));
    this.gauges = observer.endpoints && new DeliveryGauges(db, observer.endpoints, logger, holder);
  }

  start(): void {
    for (const endpoint of this.endpoints) endpoint.start();
    this.gauges?.start();
    if (speaksForInstance) this.checking = this.reportEndpointsLeftBehind();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.endpoints.map((endpoint) => endpoint.stop()), this.gauges?.stop(), this.checking]);
  }

  /**
   * Endpoints no longer in WEBHOOK_URLS (here, nor at any running instance) whose deliveries are
   * left: no process retries or gives them up, and the pending ones keep their events from being
   * pruned. One line each, at start, with how many are left and what to do.
   */
  private async reportEndpointsLeftBehind(): Promise<void> {
    const configured = new Set(this.settings.urls.map(endpointKey));
    try {
      for (const { endpoint, url, pending, failed, delivered } of await endpointCounts(this.db)) {
        if (configured.has(endpoint) || delivered || pending + failed === 0) continue;
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
