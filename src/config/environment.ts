/**
 * The service's settings, read once from the environment (each group in a file of its own:
 * database, listening, limits, tokens); an invalid value is a ConfigError naming the variable.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { authSettings, type AuthSettings } from './auth-settings.js';
import { isCluster } from './db-servers.js';
import { dbConfig, EMBEDDED_HOST, embedded, type DbConfig, type EmbeddedDbConfig } from './database-settings.js';
import { count, oneOf, port, seconds, text, type Env } from './env-values.js';
import { eventSettings, type EventSettings } from './event-settings.js';
import { idempotencySettings, type IdempotencySettings } from './idempotency-settings.js';
import { guessingLimits, rateLimit, sharedLimits, type GuessingLimits, type RateLimitSettings, type SharedLimitSettings } from './limit-settings.js';
import { listenHost, metricsHost, metricsPort } from './listen-settings.js';
import { tlsSettings, type TlsSettings } from './tls-settings.js';
import { tracingSettings, type TracingSettings } from './tracing-settings.js';

export { AUTH_OFF, authModes, jwksLocation, type AuthMode, type AuthSettings, type JwtSettings } from './auth-settings.js';
export type { DbConfig, EmbeddedDbConfig, Endpoint, HostPort } from './database-settings.js';
export { ConfigError } from './env-values.js';
export type { EventSettings, WebhookSettings } from './event-settings.js';
export type { IdempotencySettings } from './idempotency-settings.js';
export type { TlsSettings } from './tls-settings.js';
export type { TracingSettings } from './tracing-settings.js';
export { DEFAULT_GUESSING_LIMITS, type GuessingLimits, type RateLimitSettings, type SharedLimitSettings } from './limit-settings.js';

export type LogFormat = 'json' | 'pretty';

/** Which implementation's answers the service gives where they differ (the compatibility table of docs/api.md). */
export const apiCompatModes = ['contract', 'earlier', 'fastapi'] as const;
export type ApiCompat = (typeof apiCompatModes)[number];

/** Without API_COMPAT: the contract's answers. */
export const DEFAULT_API_COMPAT: ApiCompat = 'contract';

export interface Config {
  port: number;
  host: string;
  db: DbConfig;
  /** HTTP worker processes; 1 runs everything in this process. */
  workers: number;
  /** Database connections per worker. */
  poolSize: number;
  /** Present when DB_HOST is `embedded`. */
  embedded?: EmbeddedDbConfig;
  /** LOG_FORMAT; unset means JSON unless stdout is a terminal. */
  logFormat?: LogFormat;
  accessPassword: string;
  /** True when ACCESS_PASSWORD was unset and a random one was generated for this run. */
  accessPasswordGenerated: boolean;
  apiCompat: ApiCompat;
  guessing: GuessingLimits;
  /** RATE_LIMIT; undefined (the default) leaves requests unlimited and their responses without RateLimit headers. */
  rateLimit: RateLimitSettings | undefined;
  /** LIMITS_SHARED and LIMITS_SYNC_MS: undefined counts both limits per instance. */
  sharedLimits: SharedLimitSettings | undefined;
  /** The client's address is the last hop of X-Forwarded-For (only behind a reverse proxy). */
  trustProxy: boolean;
  /** `/metrics` is served; on `metricsPort` alone when that is set. */
  metrics: boolean;
  metricsPort: number | undefined;
  /** METRICS_HOST: the interface METRICS_PORT listens on; HOST unless set. */
  metricsHost: string;
  /** VALIDATE_EMAIL=on: names and emails are stored trimmed, and an email must look like one. */
  validateEmail: boolean;
  /** UNIQUE_EMAIL=on: no two users share an email (case-insensitively), kept by a unique index. */
  uniqueEmail: boolean;
  /** AUTH, API_KEYS_FILE and JWT_*. */
  auth: AuthSettings;
  /** SHUTDOWN_DELAY_S: after SIGTERM/SIGINT, `/readyz` answers 503 this long while everything else is served, then the drain starts. */
  shutdownDelaySeconds: number;
  /** EVENTS and WEBHOOK_*: undefined (the default) records no events at all. */
  events: EventSettings | undefined;
  /** IDEMPOTENCY and IDEMPOTENCY_TTL: undefined (the default) ignores the Idempotency-Key header. */
  idempotency: IdempotencySettings | undefined;
  /** TLS_*: undefined (the default) serves plain HTTP. */
  tls: TlsSettings | undefined;
  /** OTEL_*: undefined (no endpoint) exports no spans; trace context is passed on all the same. */
  tracing: TracingSettings | undefined;
}

/** Without SHUTDOWN_DELAY_S: long enough for a load balancer checking `/readyz` every second or two to take the instance out. */
export const DEFAULT_SHUTDOWN_DELAY_S = 5;

/** Unset: chosen at start by whether stdout is a terminal. */
function logFormat(env: Env): LogFormat | undefined {
  return text(env, 'LOG_FORMAT', '') === '' ? undefined : oneOf<LogFormat>(env, 'LOG_FORMAT', ['json', 'pretty'], 'json');
}

export interface ConfigDefaults {
  /** `db` (the compiled entry's, as a container deployment names its database host) or `embedded` (`npm start`). */
  dbHost?: string;
}

/**
 * `npm start` and `npm run db:init` pass `--embedded-by-default`: with DB_HOST unset they use the
 * embedded database, so a first run needs no set-up. The compiled entry keeps `db`, the database host of a container deployment.
 */
export function entryDefaults(argv: readonly string[] = process.argv): ConfigDefaults {
  return argv.includes('--embedded-by-default') ? { dbHost: EMBEDDED_HOST } : {};
}

export function loadConfig(env: Env = process.env, defaults: ConfigDefaults = {}): Config {
  const configured = env.ACCESS_PASSWORD;
  const accessPasswordGenerated = configured === undefined || configured === '';
  // DB_SOCKET names a server already running: it replaces the embedded default, not an explicit DB_HOST=embedded.
  const socketGiven = text(env, 'DB_SOCKET', '') !== '';
  const dbHost = text(env, 'DB_HOST', socketGiven && defaults.dbHost === EMBEDDED_HOST ? 'localhost' : (defaults.dbHost ?? 'db'));
  const format = logFormat(env);
  const workers = count(env, 'WORKERS', 1, 256, availableParallelism);
  const apiPort = port(env, 'PORT', 5000);
  const metrics = oneOf(env, 'METRICS', ['on', 'off'], 'off') === 'on';
  const host = listenHost(env);
  const db = dbConfig(env, dbHost);
  return {
    port: apiPort,
    host,
    ...(dbHost === EMBEDDED_HOST ? { embedded: embedded(env) } : {}),
    ...(format === undefined ? {} : { logFormat: format }),
    db,
    workers,
    poolSize: count(env, 'DB_POOL_SIZE', 10, 1000),
    accessPassword: accessPasswordGenerated ? randomBytes(18).toString('base64url') : configured,
    accessPasswordGenerated,
    apiCompat: oneOf(env, 'API_COMPAT', apiCompatModes, DEFAULT_API_COMPAT),
    guessing: guessingLimits(env),
    rateLimit: rateLimit(env),
    sharedLimits: sharedLimits(env, isCluster(db)),
    trustProxy: oneOf(env, 'TRUST_PROXY', ['0', '1'], '0') === '1',
    metrics,
    metricsPort: metricsPort(env, metrics, apiPort),
    metricsHost: metricsHost(env, host),
    validateEmail: oneOf(env, 'VALIDATE_EMAIL', ['on', 'off'], 'off') === 'on',
    uniqueEmail: oneOf(env, 'UNIQUE_EMAIL', ['on', 'off'], 'off') === 'on',
    auth: authSettings(env),
    shutdownDelaySeconds: seconds(env, 'SHUTDOWN_DELAY_S', DEFAULT_SHUTDOWN_DELAY_S, 600),
    events: eventSettings(env),
    idempotency: idempotencySettings(env),
    tls: tlsSettings(env),
    tracing: tracingSettings(env),
  };
}
