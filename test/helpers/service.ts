import { createApp, type App, type MetricsOptions } from '../../src/app.js';
import type { Integrity } from '../../src/users/rules/validate.js';
import type { ApiCompat, AuthSettings, EventSettings, GuessingLimits, IdempotencySettings, RateLimitSettings, TlsSettings } from '../../src/config/environment.js';
import type { PoolTuning } from '../../src/db/pool-tuning.js';
import type { StreamLimits } from '../../src/events/stream/event-stream.js';
import { serverLimits, type ServerLimits } from '../../src/http/server.js';
import { createLogger } from '../../src/log/logger.js';
import type { Tracing } from '../../src/tracing/tracing.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export const TEST_PASSWORD = 'test-pass-7f3a';

export interface RunningService {
  baseUrl: string;
  app: App;
  db: TestDatabase;
  /** Every line the service logged, captured instead of printed. */
  logs: string[];
  close(): Promise<void>;
}

export interface ServiceOptions {
  password?: string;
  poolTuning?: PoolTuning;
  /** Use this database instead of creating one (it is then not dropped by close). */
  db?: TestDatabase;
  /** HTTP limits to replace, e.g. timeouts of a second or two instead of the production ones. */
  serverLimits?: Partial<ServerLimits>;
  apiCompat?: ApiCompat;
  guessing?: GuessingLimits;
  /** RATE_LIMIT; off unless given. */
  rateLimit?: RateLimitSettings;
  trustProxy?: boolean;
  metrics?: MetricsOptions;
  /** VALIDATE_EMAIL and UNIQUE_EMAIL; both off unless given. */
  integrity?: Partial<Integrity>;
  /** AUTH and its token sources; off unless given. */
  auth?: AuthSettings;
  /** EVENTS and WEBHOOK_*; off unless given. */
  events?: EventSettings;
  /** How often expired events are pruned (one minute unless given). */
  eventsPruneIntervalMs?: number;
  /** IDEMPOTENCY; off unless given. */
  idempotency?: IdempotencySettings;
  /** The event stream's intervals and bounds (the production ones unless given). */
  eventStream?: Partial<StreamLimits>;
  /** False: the schema is never set up, so the service answers as it does before its migrations are applied. */
  prepareSchema?: boolean;
  /** false: return as soon as requests are served, while the index builds may still run. */
  untilSettled?: boolean;
  /** TLS_*: HTTPS (baseUrl then starts with https://). */
  tls?: TlsSettings;
  /** OTEL_*: spans exported (started with startTracing; stopped with the service). */
  tracing?: Tracing;
}

/**
 * Starts the real service in this process on 127.0.0.1, port 0, against a fresh database with the ten
 * seed users. The service as a separate process is child-service.ts.
 */
export async function startService(label: string, options: ServiceOptions = {}): Promise<RunningService> {
  const db = options.db ?? (await createTestDatabase(label));
  const logs: string[] = [];
  const app = createApp({
    db: db.config,
    accessPassword: options.password ?? TEST_PASSWORD,
    logger: createLogger((line) => logs.push(line)),
    ...(options.poolTuning ? { poolTuning: options.poolTuning } : {}),
    ...(options.serverLimits ? { serverLimits: { ...serverLimits, ...options.serverLimits } } : {}),
    testing: { schemaRetryMs: 200, schemaRetryMaxMs: 1000 },
    ...(options.apiCompat ? { apiCompat: options.apiCompat } : {}),
    // Every test file's requests come from 127.0.0.1, and several send dozens of wrong passwords on
    // purpose: with the production limit they would block themselves. Guessing tests set their own.
    guessing: options.guessing ?? { maxFailures: 1_000_000, windowSeconds: 60 },
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.integrity ? { integrity: { validateEmail: false, uniqueEmail: false, ...options.integrity } } : {}),
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(options.idempotency ? { idempotency: options.idempotency } : {}),
    ...(options.eventsPruneIntervalMs === undefined ? {} : { eventsPruneIntervalMs: options.eventsPruneIntervalMs }),
    ...(options.eventStream ? { eventStream: options.eventStream } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  const address = await app.listen(0, '127.0.0.1');
  if (options.prepareSchema !== false) {
    await app.prepareSchema();
    // The index builds go on while requests are served: most tests want the whole schema first.
    if (options.untilSettled !== false) await app.schemaSettled();
  }
  return {
    baseUrl: `${options.tls ? 'https' : 'http'}://127.0.0.1:${address.port}`,
    app,
    db,
    logs,
    async close() {
      await app.close(2000);
      if (!options.db) await db.drop();
    },
  };
}
