import type { AddressInfo } from 'node:net';
import type { Server as HttpsServer } from 'node:https';
import { bearerAuth } from './auth/verifiers.js';
import {
  AUTH_OFF,
  DEFAULT_API_COMPAT,
  type ApiCompat,
  type AuthSettings,
  type DbConfig,
  type EventSettings,
  type GuessingLimits,
  type IdempotencySettings,
  type RateLimitSettings,
  type SharedLimitSettings,
} from './config/environment.js';
import { createConnectionSource } from './db/connect.js';
import type { ConnectionSource } from './db/connection-source.js';
import { endPool } from './db/pool.js';
import { defaultTuning, type PoolTuning } from './db/pool-tuning.js';
import { schemaNeeds } from './startup/schema-needs.js';
import type { SchemaPhase } from './startup/schema-setup.js';
import { registerIndexRoute } from './docs/index-route.js';
import { registerDocsRoutes } from './docs/routes.js';
import { ChangeEvents, type ChangeEventsOptions } from './events/change-events.js';
import { registerHealthRoutes } from './health/routes.js';
import { SchemaGate } from './startup/schema-gate.js';
import { clientAddressOf } from './http/client-address.js';
import type { Handler } from './http/context.js';
import { Router } from './http/router.js';
import { requestIdOf } from './http/request-id.js';
import { createHttpServer, type HttpService, type ServerLimits } from './http/server.js';
import { appLimits } from './limits/app-limits.js';
import type { Counters } from './limits/counters.js';
import { rateLimitAdmission } from './limits/rate-limit.js';
import { rateLimitKey } from './limits/rate-limit-key.js';
import type { Logger } from './log/logger.js';
import type { Snapshot } from './metrics/registry.js';
import { registerMetricsRoute } from './metrics/route.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { openAccess, userAccess } from './users/http/access.js';
import { compatErrors } from './users/http/compat.js';
import { ListCursors } from './users/rules/list-cursor.js';
import { UserStore } from './users/storage/store.js';
import { passwordChecker } from './users/http/password.js';
import { passwordGate } from './users/http/password-gate.js';
import { registerUserRoutes } from './users/http/routes.js';
import { userValidation, type Integrity } from './users/rules/validate.js';
import type { TlsSettings } from './config/tls-settings.js';
import { secureTransport } from './tls/secure-transport.js';
import type { Tracing } from './tracing/tracing.js';

export interface AppOptions {
  db: DbConfig;
  accessPassword: string;
  logger: Logger;
  poolTuning?: PoolTuning;
  /** Tests only; the service never sets it. */
  testing?: {
    /** First pause between attempts to create the schema while the database is unreachable (1 s); it doubles each time. */
    schemaRetryMs?: number;
    /** The longest pause between attempts (30 s). */
    schemaRetryMaxMs?: number;
  };
  /** HTTP timeouts and sizes; defaults to serverLimits. */
  serverLimits?: Readonly<ServerLimits>;
  /** Whose answers to give where the implementations differ; the contract's by default. */
  apiCompat?: ApiCompat;
  /** Wrong passwords that block an address; 10 within 60 s by default. */
  guessing?: GuessingLimits;
  /** RATE_LIMIT: API requests per client per window; unlimited when not given. */
  rateLimit?: RateLimitSettings;
  /** Where the limits above are counted: this process by default; a worker's primary (src/limits/worker-counters.ts). */
  counters?: Counters;
  /** LIMITS_SHARED=on: with `counters` unset, both limits are counted here for every instance on the database. */
  sharedLimits?: SharedLimitSettings;
  /** Take the client's address from X-Forwarded-For (behind a reverse proxy only). */
  trustProxy?: boolean;
  /** Metrics are recorded only when given. */
  metrics?: MetricsOptions;
  /** VALIDATE_EMAIL and UNIQUE_EMAIL; both off by default (the contract checks only presence). */
  integrity?: Integrity;
  /** AUTH and its token sources; off by default (the contract: no token anywhere). */
  auth?: AuthSettings;
  /** EVENTS and WEBHOOK_*; off by default: no event is recorded, no outbox read. */
  events?: EventSettings;
  /** IDEMPOTENCY: creates honour an Idempotency-Key header; off by default (the header is ignored). */
  idempotency?: IdempotencySettings;
  /** TLS_*: HTTPS on the API port, its certificates reloaded when they change. */
  tls?: TlsSettings;
  /** OTEL_*: spans exported over OTLP, started by the caller (the packages load asynchronously); stopped by close(). */
  tracing?: Tracing;
  /** Tests only: how often expired events are looked for (one minute). */
  eventsPruneIntervalMs?: number;
  /** Tests only: the event stream's intervals and bounds (src/events/stream/event-streams.ts has the defaults). */
  eventStream?: ChangeEventsOptions['streamLimits'];
}

export interface MetricsOptions {
  /** `GET /metrics` on the API's own port; false when a separate port (METRICS_PORT) serves it. */
  onApiPort: boolean;
  /** The figures `/metrics` shows; this process's by default (a cluster worker asks its primary). */
  read?: (own: ServiceMetrics) => Promise<Snapshot>;
}

export interface App {
  readonly http: HttpService;
  readonly pool: ConnectionSource;
  /** This process's metrics, when they are recorded. */
  readonly metrics: ServiceMetrics | undefined;
  /** The figures `/metrics` shows (see MetricsOptions.read); empty without metrics. */
  readMetrics(): Promise<Snapshot>;
  /** Every route the app serves (for the OpenAPI conformance test). */
  routes(): Array<{ method: string; path: string }>;
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Resolves once requests are served: every step they wait for is in place (index builds go on
   * while they are); keeps retrying while the database is unreachable. Rejects with an
   * UnusableSchemaError when the schema cannot be used: the start should stop.
   */
  prepareSchema(): Promise<void>;
  /** Resolves once every migration is done, the index builds included. */
  schemaSettled(): Promise<void>;
  /** Where another process's set-up (the primary of several workers) stands, until it is ready. */
  schemaAt(phase: Exclude<SchemaPhase, 'ready'>): void;
  /** The schema was put in place by another process (the primary of several workers). */
  schemaPrepared(): void;
  /**
   * From now on `/readyz` answers 503 (`Shutting down`), so that load balancers stop sending
   * requests here; everything else, keep-alive included, is served as before. close() does it too.
   */
  leaveRotation(): void;
  /** Stops accepting, lets in-flight requests finish (forcing them closed after drainMs), closes the pool. */
  close(drainMs?: number): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const { db, logger } = options;
  const auth = options.auth ?? AUTH_OFF;
  // First: a key file that cannot be read throws here, before a pool is opened that nothing would close.
  const bearer = bearerAuth(auth, logger);
  const secure = options.tls && secureTransport(options.tls, logger);
  const tuning = options.poolTuning ?? defaultTuning;
  const pool = createConnectionSource(db, tuning, logger);
  const metrics = options.metrics ? new ServiceMetrics(() => pool.usage()) : undefined;
  if (metrics) options.tracing?.registerMetrics(metrics.registry);
  const events =
    options.events &&
    new ChangeEvents({
      pool,
      tuning,
      settings: options.events,
      logger,
      ...(metrics ? { metrics: metrics.registry } : {}),
      ...(options.eventsPruneIntervalMs === undefined ? {} : { pruneIntervalMs: options.eventsPruneIntervalMs }),
      ...(options.eventStream ? { streamLimits: options.eventStream } : {}),
    });
  const store = new UserStore(pool, tuning, metrics?.store, events ? events.recording : undefined, options.idempotency?.ttlSeconds);
  const readMetrics = async (): Promise<Snapshot> => {
    if (!metrics) return [];
    return options.metrics?.read ? options.metrics.read(metrics) : metrics.registry.snapshot();
  };
  let leaving = false;
  const gate = new SchemaGate(db, logger, {
    needs: schemaNeeds({
      uniqueEmail: options.integrity?.uniqueEmail ?? false,
      events: options.events,
      idempotency: options.idempotency,
      sharedLimits: options.counters ? undefined : options.sharedLimits,
    }),
    onReady: () => events?.start(),
    // The shared limits' table may be among the migrations made while requests are served.
    onSettled: () => limits.start(),
    retryMs: options.testing?.schemaRetryMs,
    maxRetryMs: options.testing?.schemaRetryMaxMs,
  });

  const router = new Router<Handler>();
  const mode = options.apiCompat ?? DEFAULT_API_COMPAT;
  const limits = appLimits(options, tuning, metrics?.registry);
  const access = bearer === undefined || auth.mode === 'off' ? openAccess : userAccess(auth.mode, bearer);
  const byPassword = passwordGate(passwordChecker(options.accessPassword), limits.counters.guessing, compatErrors[mode].wrongPassword);
  registerUserRoutes(router, {
    store,
    byPassword,
    errors: compatErrors[mode],
    cursors: new ListCursors(options.accessPassword),
    validate: userValidation(options.integrity?.validateEmail ?? false),
    access,
    idempotency: options.idempotency !== undefined,
  });
  events?.serveStream(router, access, byPassword);
  events?.serveWebhookEndpoints(router, auth.mode === 'off' ? undefined : bearer);
  registerHealthRoutes(router, { stopping: () => leaving, answers: async () => gate.ready && (await store.answers()) });
  const metricsOnApiPort = options.metrics?.onApiPort === true;
  registerIndexRoute(router);
  registerDocsRoutes(router, {
    mode,
    metricsOnApiPort,
    ...(auth.mode === 'off' ? {} : { auth: auth.mode }),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    events: events !== undefined,
  });
  if (metricsOnApiPort) registerMetricsRoute(router, readMetrics);
  const http = createHttpServer({
    router,
    logger,
    clientAddress: clientAddressOf(options.trustProxy ?? false, logger),
    ...(options.serverLimits ? { limits: options.serverLimits } : {}),
    ...(metrics ? { observe: metrics.observeResponse } : {}),
    ...(secure ? { secure: secure.serverOptions } : {}),
    ...(options.tracing ? { startSpan: options.tracing.startSpan, endSpan: options.tracing.endSpan } : {}),
    admit: gate.admission(
      options.rateLimit && limits.counters.requests
        ? rateLimitAdmission(options.rateLimit, limits.counters.requests, rateLimitKey(bearer && ((req, res) => bearer.principalOf(req, requestIdOf(res)))))
        : undefined,
    ),
  });
  return {
    http,
    pool,
    metrics,
    readMetrics,
    prepareSchema: () => gate.prepare(),
    schemaSettled: () => gate.settled,
    schemaAt: (phase) => gate.at(phase),
    schemaPrepared: () => gate.prepared(),
    leaveRotation: () => {
      leaving = true;
    },
    routes: () => router.routes(),
    listen: async (port, host) => {
      const address = await http.listen(port, host);
      secure?.attach(http.server as HttpsServer);
      return address;
    },
    close: async (drainMs = 10_000) => {
      leaving = true;
      gate.stop();
      secure?.stop();
      http.startDraining();
      events?.endStreams();
      await http.close(drainMs);
      await events?.stop();
      await limits.stop();
      await endPool(pool);
      await options.tracing?.stop();
    },
  };
}
