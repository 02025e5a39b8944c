import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { ApiKeyFileError, readApiKeysFile, unreadable } from '../auth/api-key-file.js';
import type { JwtSettings } from '../auth/jwt-settings.js';

export interface HostPort {
  host: string;
  port: number;
}

/** Where one server is reached: a Unix socket (DB_SOCKET, or the embedded database's), or host and port. */
export type Endpoint = { socketPath: string } | HostPort;

export interface DbConfig {
  /** Every server, in DB_HOST order: one, or several used as a cluster (see db-servers.ts). */
  servers: Endpoint[];
  user: string;
  password: string;
  database: string;
}

/** `DB_HOST=embedded`: a private server the service starts itself, with its data kept here. */
export interface EmbeddedDbConfig {
  /** Absolute path of DB_EMBEDDED_DIR. */
  dataDir: string;
  /** DB_EMBEDDED_DIR as given (`./data/mysql` by default), for the start-up line. */
  dataDirShown: string;
  /** DB_EMBEDDED_BIN: the server binary to use, instead of searching for one. */
  bin?: string;
}

export type LogFormat = 'json' | 'pretty';

const EMBEDDED_HOST = 'embedded';

/** Which implementation's answers the service gives where they differ (the README's compatibility table). */
export const apiCompatModes = ['contract', 'earlier', 'fastapi'] as const;
export type ApiCompat = (typeof apiCompatModes)[number];

/** Without API_COMPAT: the contract's answers. */
export const DEFAULT_API_COMPAT: ApiCompat = 'contract';

/** Without AUTH_MAX_FAILURES and AUTH_WINDOW_S: 10 wrong passwords within 60 s block an address. */
export const DEFAULT_GUESSING_LIMITS = { maxFailures: 10, windowSeconds: 60 } as const;

export interface GuessingLimits {
  /** Wrong passwords from one address within the window that block it. */
  maxFailures: number;
  windowSeconds: number;
  /** Tests only; never read from the environment. */
  testing?: {
    /** Addresses remembered at once, made small to show the bound. */
    maxTracked?: number;
  };
}

/** `RATE_LIMIT=100/10s`: at most `requests` API requests per client within each window. */
export interface RateLimitSettings {
  requests: number;
  windowSeconds: number;
  /** Tests only; never read from the environment. */
  testing?: {
    /** Clients counted at once, made small to show the bound. */
    maxTracked?: number;
  };
}

/** AUTH: which requests need a bearer token. `off`, the default, is the contract as it is. */
export const authModes = ['off', 'writes', 'all'] as const;
export type AuthMode = (typeof authModes)[number];

/**
 * Bearer tokens. With `writes`, creating, updating and deleting users need a token with
 * `users:write`; with `all`, reading one user also needs `users:read`, and the list takes `pwd` or
 * a token with `users:read`. At least one source of tokens is set when the mode is not `off`.
 */
export interface AuthSettings {
  mode: AuthMode;
  /** API_KEYS_FILE, as an absolute path; read at start and again whenever it changes. */
  apiKeysFile?: string;
  /** The JWT_* settings, present when a JWT key source is set. */
  jwt?: JwtSettings;
  /** With AUTH=off: the token settings given anyway, which the service ignores (it warns at start). */
  ignored?: string[];
}

/** Without AUTH: no token is asked for anywhere. */
export const AUTH_OFF: Readonly<AuthSettings> = Object.freeze({ mode: 'off' });

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
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function port(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`${name} must be a port number from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

function positive(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ConfigError(`${name} must be a whole number from 1 to 999999999, got "${raw}"`);
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** Database names are interpolated into DDL, so only plain identifiers are accepted. */
function identifier(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback);
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(value)) {
    throw new ConfigError(`${name} must be 1-64 letters, digits, "_" or "$", got "${value}"`);
  }
  return value;
}

function count(env: Env, name: string, fallback: number, max: number, auto?: () => number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (auto && raw === 'auto') return auto();
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max}${auto ? ' or "auto"' : ''}, got "${raw}"`);
  }
  return Number(raw);
}

/** Without SHUTDOWN_DELAY_S: long enough for a load balancer checking `/readyz` every second or two to take the instance out. */
export const DEFAULT_SHUTDOWN_DELAY_S = 5;

/** A whole number of seconds from 0 to `max`. */
function seconds(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) > max) throw new ConfigError(`${name} must be a whole number of seconds from 0 to ${max}, got "${raw}"`);
  return Number(raw);
}

const WINDOW_UNITS = { s: 1, m: 60, h: 3600 } as const;

/** `<requests>/<window>`, the window a whole number of s, m or h (`100/10s`, `600/m`); `off` or unset: no limit. */
function rateLimit(env: Env): RateLimitSettings | undefined {
  const raw = text(env, 'RATE_LIMIT', 'off');
  if (raw === 'off') return undefined;
  const match = /^([1-9]\d{0,8})\/([1-9]\d{0,5})?([smh])$/.exec(raw);
  if (!match) throw new ConfigError(`RATE_LIMIT must be requests per window such as 100/10s, 600/m or 5000/1h (or off), got "${raw}"`);
  return { requests: Number(match[1]), windowSeconds: Number(match[2] ?? 1) * WINDOW_UNITS[match[3] as keyof typeof WINDOW_UNITS] };
}

/**
 * `host[:port],host[:port],…`; a host without a port gets DB_PORT. An IPv6 address takes a port in
 * brackets (`[::1]:3307`); bare (`::1`) it is a host alone.
 */
function parseHostList(raw: string, defaultPort: number): HostPort[] {
  return raw.split(',').map((entry) => {
    const bare = entry.trim();
    if (/^[0-9a-fA-F:.]+$/.test(bare) && bare.split(':').length > 2) return { host: bare, port: defaultPort };
    const match = /^\s*(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+)(?::(\d{1,5}))?\s*$/.exec(entry);
    if (!match || (match[2] !== undefined && Number(match[2]) > 65535)) {
      throw new ConfigError(`DB_HOST must be host[:port] entries separated by commas, got "${raw}"`);
    }
    const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
    return { host, port: match[2] === undefined ? defaultPort : Number(match[2]) };
  });
}

/** Unix socket paths are limited to 107 bytes (108 with the terminating NUL, on Linux). */
const MAX_SOCKET_PATH_BYTES = 107;

/** DB_SOCKET: an absolute path, short enough to be a socket's. */
function socketPath(env: Env): string | undefined {
  const raw = text(env, 'DB_SOCKET', '');
  if (raw === '') return undefined;
  if (!raw.startsWith('/') || Buffer.byteLength(raw) > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError(`DB_SOCKET must be an absolute path of at most ${MAX_SOCKET_PATH_BYTES} bytes, got "${raw}"`);
  }
  return raw;
}

/**
 * `embedded` stays as it is: the embedded database replaces it with its socket at start, unless
 * DB_SOCKET already names that socket (the workers of WORKERS=N, whose primary started it).
 */
function dbConfig(env: Env, dbHost: string): DbConfig {
  const defaultPort = port(env, 'DB_PORT', 3306);
  const nodes = dbHost === EMBEDDED_HOST ? [{ host: dbHost, port: defaultPort }] : parseHostList(dbHost, defaultPort);
  const socket = socketPath(env);
  if (socket !== undefined && nodes.length > 1) {
    throw new ConfigError('DB_SOCKET names one server on this machine: it cannot be combined with a DB_HOST list of several');
  }
  return {
    servers: socket === undefined ? nodes : [{ socketPath: socket }],
    user: text(env, 'DB_USER', 'root'),
    password: env.DB_PASSWORD ?? '',
    database: identifier(env, 'DB_NAME', 'restapi'),
  };
}

/** A host name: dot-separated labels of letters, digits, `-` and `_`, at most 253 characters. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/**
 * HOST: an IP address or a host name. A name whose last label is a number (`999.1.1.1`, `1.2.3`)
 * is an address gone wrong, not a name: refused here rather than looked up. Whether a name resolves,
 * and whether the address is this machine's, the start finds out by binding it (listen-check.ts).
 */
function listenHost(env: Env): string {
  const host = text(env, 'HOST', '0.0.0.0');
  if (isIP(host) !== 0) return host;
  if (!HOST_NAME.test(host) || /^\d+$/.test(host.replace(/\.$/, '').split('.').at(-1)!)) {
    throw new ConfigError(`HOST must be an IP address (0.0.0.0, ::, 127.0.0.1, ...) or a host name, got "${host}"`);
  }
  return host;
}

/**
 * METRICS_PORT: only with METRICS=on, and another port than PORT (0 for either lets the system
 * choose, so two zeros are two ports). Refused rather than ignored: a scraper pointed at a port
 * nothing serves fails long after the start, while a refused start is seen at once.
 */
function metricsPort(env: Env, metrics: boolean, apiPort: number): number | undefined {
  const raw = text(env, 'METRICS_PORT', '');
  if (raw === '') return undefined;
  const chosen = port(env, 'METRICS_PORT', 0);
  if (!metrics) throw new ConfigError('METRICS_PORT is set but METRICS is not on: set METRICS=on to serve /metrics there, or unset METRICS_PORT');
  if (chosen !== 0 && chosen === apiPort) {
    throw new ConfigError(`METRICS_PORT must differ from PORT (both ${chosen}): /metrics gets a port of its own, or unset METRICS_PORT to serve it on PORT`);
  }
  return chosen;
}

/** Unset: chosen at start by whether stdout is a terminal. */
function logFormat(env: Env): LogFormat | undefined {
  return text(env, 'LOG_FORMAT', '') === '' ? undefined : oneOf<LogFormat>(env, 'LOG_FORMAT', ['json', 'pretty'], 'json');
}

function embedded(env: Env): EmbeddedDbConfig {
  const dataDirShown = text(env, 'DB_EMBEDDED_DIR', './data/mysql');
  const bin = text(env, 'DB_EMBEDDED_BIN', '');
  return { dataDir: resolve(dataDirShown), dataDirShown, ...(bin === '' ? {} : { bin }) };
}

/**
 * METRICS_HOST: an IP address (or `localhost`), so that the metrics port can stay on loopback or a
 * private interface while HOST is public. Unset: HOST, where METRICS_PORT listened before it existed.
 * Without METRICS_PORT it would do nothing, and `/metrics` would be on the API port after all: refused.
 */
function metricsHost(env: Env, host: string): string {
  const raw = text(env, 'METRICS_HOST', '');
  if (raw === '') return host;
  if (raw !== 'localhost' && isIP(raw) === 0) {
    throw new ConfigError(`METRICS_HOST must be an IP address such as 127.0.0.1 or ::1 (or localhost), got "${raw}"`);
  }
  if (text(env, 'METRICS_PORT', '') === '') {
    throw new ConfigError('METRICS_HOST is set but METRICS_PORT is not: without it /metrics is served on the API port, at HOST');
  }
  return raw;
}

const TOKEN_SETTINGS = ['API_KEYS_FILE', 'JWT_SECRET', 'JWT_PUBLIC_KEY_FILE', 'JWT_JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE'] as const;
const JWT_KEY_SOURCES = 'JWT_SECRET, JWT_PUBLIC_KEY_FILE or JWT_JWKS_URL';
/** HS256 needs a secret at least as long as its hash (RFC 7518 3.2): a shorter one can be brute-forced offline from one token. */
const MIN_JWT_SECRET_BYTES = 32;

/**
 * AUTH and the token settings. With AUTH=off none of them is read (not even the files): the
 * service behaves exactly as without them, and names the ignored ones so that it can warn.
 */
function authSettings(env: Env): AuthSettings {
  const mode = oneOf(env, 'AUTH', authModes, 'off');
  if (mode === 'off') {
    const ignored = TOKEN_SETTINGS.filter((name) => text(env, name, '') !== '');
    return ignored.length === 0 ? { mode } : { mode, ignored };
  }
  const jwt = jwtSettings(env);
  const keysFile = text(env, 'API_KEYS_FILE', '');
  if (keysFile === '' && jwt === undefined) {
    throw new ConfigError(`AUTH=${mode} needs a source of tokens: API_KEYS_FILE, or a JWT key (${JWT_KEY_SOURCES})`);
  }
  const settings: AuthSettings = { mode };
  if (keysFile !== '') {
    settings.apiKeysFile = resolve(keysFile);
    try {
      readApiKeysFile(settings.apiKeysFile);
    } catch (error) {
      if (!(error instanceof ApiKeyFileError)) throw error;
      throw new ConfigError(`API_KEYS_FILE (${keysFile}) ${error.message}`);
    }
  }
  if (jwt !== undefined) settings.jwt = jwt;
  return settings;
}

/** The JWT_* settings; undefined when no key source is set (and then neither issuer nor audience may be). */
function jwtSettings(env: Env): JwtSettings | undefined {
  const secret = text(env, 'JWT_SECRET', '');
  const publicKeyFile = text(env, 'JWT_PUBLIC_KEY_FILE', '');
  const jwksUrl = text(env, 'JWT_JWKS_URL', '');
  const issuer = text(env, 'JWT_ISSUER', '');
  const audience = text(env, 'JWT_AUDIENCE', '');
  if (secret === '' && publicKeyFile === '' && jwksUrl === '') {
    const orphan = issuer !== '' ? 'JWT_ISSUER' : audience !== '' ? 'JWT_AUDIENCE' : undefined;
    if (orphan) throw new ConfigError(`${orphan} is set but no JWT key is: set ${JWT_KEY_SOURCES} as well`);
    return undefined;
  }
  const settings: JwtSettings = {};
  if (secret !== '') {
    if (Buffer.byteLength(secret) < MIN_JWT_SECRET_BYTES) {
      throw new ConfigError(`JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes (256 bits): a shorter HS256 secret can be guessed from one token`);
    }
    settings.secret = secret;
  }
  if (publicKeyFile !== '') {
    settings.publicKeyFile = resolve(publicKeyFile);
    try {
      readFileSync(settings.publicKeyFile);
    } catch (error) {
      throw new ConfigError(`JWT_PUBLIC_KEY_FILE (${publicKeyFile}) cannot be read (${unreadable(error)})`);
    }
  }
  if (jwksUrl !== '') settings.jwksUrl = jwksLocation(jwksUrl);
  if (issuer !== '') settings.issuer = issuer;
  if (audience !== '') settings.audience = audience;
  return settings;
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** JWT_JWKS_URL: https, since whoever can change the keys in transit can sign tokens; plain http only on this machine. */
export function jwksLocation(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`JWT_JWKS_URL must be an https:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new ConfigError(`JWT_JWKS_URL must be an https:// URL (http:// only to localhost), got "${raw}"`);
  }
  return raw;
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
  return {
    port: apiPort,
    host,
    ...(dbHost === EMBEDDED_HOST ? { embedded: embedded(env) } : {}),
    ...(format === undefined ? {} : { logFormat: format }),
    db: dbConfig(env, dbHost),
    workers,
    poolSize: count(env, 'DB_POOL_SIZE', 10, 1000),
    accessPassword: accessPasswordGenerated ? randomBytes(18).toString('base64url') : configured,
    accessPasswordGenerated,
    apiCompat: oneOf(env, 'API_COMPAT', apiCompatModes, DEFAULT_API_COMPAT),
    guessing: {
      maxFailures: positive(env, 'AUTH_MAX_FAILURES', DEFAULT_GUESSING_LIMITS.maxFailures),
      windowSeconds: positive(env, 'AUTH_WINDOW_S', DEFAULT_GUESSING_LIMITS.windowSeconds),
    },
    rateLimit: rateLimit(env),
    trustProxy: oneOf(env, 'TRUST_PROXY', ['0', '1'], '0') === '1',
    metrics,
    metricsPort: metricsPort(env, metrics, apiPort),
    metricsHost: metricsHost(env, host),
    validateEmail: oneOf(env, 'VALIDATE_EMAIL', ['on', 'off'], 'off') === 'on',
    uniqueEmail: oneOf(env, 'UNIQUE_EMAIL', ['on', 'off'], 'off') === 'on',
    auth: authSettings(env),
    shutdownDelaySeconds: seconds(env, 'SHUTDOWN_DELAY_S', DEFAULT_SHUTDOWN_DELAY_S, 600),
  };
}
