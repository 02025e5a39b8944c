import { resolve } from 'node:path';
import { ConfigError, identifier, port, text, type Env } from './env-values.js';

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

/** DB_HOST's value for the embedded database. */
export const EMBEDDED_HOST = 'embedded';

/** `DB_HOST=embedded`: a private server the service starts itself, with its data kept here. */
export interface EmbeddedDbConfig {
  /** Absolute path of DB_EMBEDDED_DIR. */
  dataDir: string;
  /** DB_EMBEDDED_DIR as given (`./data/mysql` by default), for the start-up line. */
  dataDirShown: string;
  /** DB_EMBEDDED_BIN: the server binary to use, instead of searching for one. */
  bin?: string;
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
export function dbConfig(env: Env, dbHost: string): DbConfig {
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

export function embedded(env: Env): EmbeddedDbConfig {
  const dataDirShown = text(env, 'DB_EMBEDDED_DIR', './data/mysql');
  const bin = text(env, 'DB_EMBEDDED_BIN', '');
  return { dataDir: resolve(dataDirShown), dataDirShown, ...(bin === '' ? {} : { bin }) };
}
