import { randomBytes } from 'node:crypto';
import type { WebhookSettings } from '../../config/environment.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../log/logger.js';
import type { EventLog } from '../event-log.js';
import { thisHolder } from '../lease.js';
import { EndpointWorker } from './endpoint-worker.js';
import type { WebhookObserver } from './metrics.js';

/**
 * WEBHOOK_URLS: every acknowledged change POSTed to each URL, signed (Standard Webhooks), at least
 * once and in order per user, off the request path. One EndpointWorker per URL.
 */
export class WebhookDelivery {
  private readonly endpoints: EndpointWorker[];

  constructor(db: Database, log: EventLog, settings: WebhookSettings, logger: Logger, observer: WebhookObserver) {
    // A holder of its own, not just this process's: two services in one process (tests) must not share leases.
    const holder = `${thisHolder}:${randomBytes(3).toString('hex')}`;
    this.endpoints = settings.urls.map((url) => new EndpointWorker({ db, log, url, settings, logger, observer, holder }));
  }

  start(): void {
    for (const endpoint of this.endpoints) endpoint.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.endpoints.map((endpoint) => endpoint.stop()));
  }
}
