import type { EventSettings } from '../config/environment.js';
import type { ConnectionSource } from '../db/connection-source.js';
import { BackgroundDatabase } from '../db/background-database.js';
import { Database } from '../db/database.js';
import type { PoolTuning } from '../db/pool-tuning.js';
import type { Logger } from '../log/logger.js';
import type { Registry } from '../metrics/registry.js';
import type { Handler } from '../http/context.js';
import type { Router } from '../http/router.js';
import type { UserAccess } from '../users/http/access.js';
import type { PasswordGate } from '../users/http/password-gate.js';
import type { EventRecording } from '../users/storage/recorded-writes.js';
import { EventLog } from './event-log.js';
import { EventNumbering } from './event-numbering.js';
import { Pruner } from './pruner.js';
import type { StreamLimits } from './stream/event-stream.js';
import type { EventStreams } from './stream/event-streams.js';
import { registerEventStream } from './stream/route.js';
import type { BearerAuth } from '../auth/bearer-auth.js';
import { endpointKey } from './webhooks/endpoint-key.js';
import { EndpointHistory } from './webhooks/endpoints/endpoint-history.js';
import { EndpointRecovery } from './webhooks/endpoints/endpoint-recovery.js';
import { EndpointStore } from './webhooks/endpoints/endpoint-store.js';
import { adminAccess } from './webhooks/endpoints/http/admin-access.js';
import { registerEndpointRoutes } from './webhooks/endpoints/http/endpoint-routes.js';
import { unobserved, webhookMetrics } from './webhooks/metrics.js';
import { WebhookDelivery } from './webhooks/webhook-delivery.js';

/** Connections webhook delivery holds at once at most, of the pool every request shares. */
const DELIVERY_CONNECTIONS = 2;

export interface ChangeEventsOptions {
  pool: ConnectionSource;
  tuning: PoolTuning;
  settings: EventSettings;
  logger: Logger;
  /** Where webhook delivery registers its metrics, when they are recorded. */
  metrics?: Registry;
  /** Tests only: how often the pruner looks for expired events (one minute). */
  pruneIntervalMs?: number;
  /** Tests only: the stream's intervals and bounds (stream/event-streams.ts has the defaults). */
  streamLimits?: Partial<StreamLimits>;
}

/**
 * EVENTS=on: what reads the outbox (the stream, webhook delivery) and keeps it in bounds (pruning).
 * The background jobs start once the schema is in place and stop before the pool closes.
 */
export class ChangeEvents {
  readonly log: EventLog;
  private readonly numbering: EventNumbering;
  private readonly pruner: Pruner;
  private readonly db: Database;
  private readonly webhooks: WebhookDelivery | undefined;
  private streams: EventStreams | undefined;
  private started = false;

  constructor(readonly options: ChangeEventsOptions) {
    const db = (this.db = new Database(options.pool, options.tuning.operationTimeoutMs, options.tuning.trustAnsweredWithinMs));
    this.log = new EventLog(db);
    this.numbering = new EventNumbering(db, options.logger, (lastId) => {
      this.streams?.numbered(lastId);
      this.webhooks?.watermark.numbered(lastId);
    });
    this.pruner = new Pruner(db, this.log, options.settings.retentionSeconds, options.logger, options.pruneIntervalMs);
    const { webhooks } = options.settings;
    // Delivery holds at most a few of the pool's connections at once, whatever its backlog: requests keep the rest.
    const background = new BackgroundDatabase(options.pool, options.tuning.operationTimeoutMs, options.tuning.trustAnsweredWithinMs, DELIVERY_CONNECTIONS);
    this.webhooks =
      webhooks && new WebhookDelivery(background, new EventLog(background), webhooks, options.logger, options.metrics ? webhookMetrics(options.metrics) : unobserved);
  }

  /** What the store tells of the events it commits: they are numbered at once. */
  get recording(): EventRecording {
    return { committed: this.numbering.committed };
  }

  /** `GET /api/users/events`, let in exactly as the list is. */
  serveStream(router: Router<Handler>, access: UserAccess, byPassword: PasswordGate): void {
    const { logger, streamLimits } = this.options;
    this.streams = registerEventStream(router, {
      log: this.log,
      logger,
      access,
      byPassword,
      ...(streamLimits ? { limits: streamLimits } : {}),
      ...(this.options.metrics ? { metrics: this.options.metrics } : {}),
    });
  }

  /** `/api/webhooks/endpoints`: integrators manage their endpoints, with a token with webhooks:admin (`bearer`: undefined with AUTH=off). */
  serveWebhookEndpoints(router: Router<Handler>, bearer: BearerAuth | undefined): void {
    const { webhooks } = this;
    const settings = this.options.settings.webhooks;
    if (webhooks === undefined || settings === undefined) return;
    registerEndpointRoutes(router, {
      store: new EndpointStore(this.db),
      history: new EndpointHistory(this.db),
      recovery: new EndpointRecovery(this.db, this.log, this.options.settings.retentionSeconds),
      directory: webhooks.directory,
      listed: webhooks.listed,
      environment: new Set(settings.urls.map(endpointKey)),
      rules: { httpsOnly: settings.httpsOnly, guard: webhooks.guard },
      admin: adminAccess(bearer),
    });
  }

  /** Ends the open streams at once, so that a shutdown does not wait for them. */
  endStreams(): void {
    this.streams?.close();
  }

  /** Once the schema (and so the outbox) exists. Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.numbering.start();
    this.pruner.start();
    this.webhooks?.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.numbering.stop(), this.pruner.stop(), this.webhooks?.stop()]);
  }
}
