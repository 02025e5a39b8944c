import type { Database } from '../../db/database.js';
import type { Logger } from '../../log/logger.js';
import { Lease } from '../lease.js';
import { endpointCounts } from './endpoint-counts.js';
import type { EndpointGauges } from './metrics.js';
import { shownUrl } from './shown-url.js';

/** A killed counter's lease runs out this soon, and another process counts. */
const LEASE_SECONDS = 30;
/** How often the counts are read: the gauges are at most this old. */
const REFRESH_MS = 10_000;

/**
 * The gauges of pending and failed deliveries per endpoint (webhook_deliveries_pending and
 * _failed), read from the database by one process of all the workers and instances sharing it:
 * the holder of the `webhooks:gauges` lease, every REFRESH_MS. The others show no such series, so
 * figures merged across workers (added up) or summed across instances count each delivery once,
 * and a scrape costs no query. Every endpoint in the table is counted, also one no longer in any
 * WEBHOOK_URLS, whose deliveries are still waiting.
 */
export class DeliveryGauges {
  private readonly lease: Lease;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly db: Database,
    private readonly gauges: EndpointGauges,
    private readonly logger: Logger,
    holder: string,
  ) {
    this.lease = new Lease(db, 'webhooks:gauges', LEASE_SECONDS, holder);
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.gauges.hide();
    await this.lease.release();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.refresh().finally(() => this.schedule(REFRESH_MS));
    }, delayMs);
    this.timer.unref();
  }

  private async refresh(): Promise<void> {
    try {
      if (!(await this.lease.heldElsewhere()) && (await this.lease.take())) {
        const counts = await endpointCounts(this.db);
        this.gauges.show(
          counts.map(({ url, pending, failed }) => ({ endpoint: shownUrl(url), pending, failed })),
          () => this.lease.held(),
        );
        this.failing = false;
      } else {
        this.gauges.hide();
      }
    } catch (error) {
      // The database away: the gauges go (stale figures would look current), said once until they are back.
      this.gauges.hide();
      if (!this.failing) this.logger.warn('counting webhook deliveries failed, trying again later', { reason: (error as Error).message });
      this.failing = true;
    }
  }
}
