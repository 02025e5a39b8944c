import mysql, { type Pool, type PoolConnection } from 'mysql2';
import type { DbConfig } from '../config.js';
import { sql } from './statements.js';

export interface PoolTuning {
  connectionLimit: number;
  /** Requests waiting for a connection beyond this many are refused instead of queued. */
  queueLimit: number;
  connectTimeoutMs: number;
  /**
   * Longest one store operation may take, waiting for a connection included (and the longest a
   * listing may wait for its next row): with the database gone every request still gets its 500
   * in under 5 s.
   */
  operationTimeoutMs?: number;
  /** Idle connections are closed after this long, well before the server's wait_timeout drops them. */
  idleTimeoutMs?: number;
  /**
   * How many batches of reads by id (and of listings) may run at once; while they run, further
   * operations of that kind gather into the next batch.
   */
  batchesInFlight?: number;
  /**
   * The same for creates and for updates. One each: a write waits for its commit anyway, and the
   * writes gathered meanwhile share the next one (measured with the benchmark's `mixed` scenario).
   */
  writeBatchesInFlight?: number;
  /**
   * A connection that answered within this many ms is trusted for a write without a ping first.
   * Servers that kill or time out a connection say so on the socket, and the pool drops it; only a
   * connection cut silently (no FIN, no RST) within this window can fail a write, with a 500.
   */
  trustAnsweredWithinMs?: number;
  /** Concurrent listings share one read while the whole list stays under this many bytes. */
  sharedListLimitBytes?: number;
  /** Tests only: the session wait_timeout, so that the server drops idle connections soon. */
  sessionWaitTimeoutSeconds?: number;
  /** Tests only: the session's auto-increment step and offset, as a Galera cluster sets them. */
  sessionAutoIncrement?: { increment: number; offset: number };
}

export const defaultTuning = {
  connectionLimit: 10,
  queueLimit: 5000,
  connectTimeoutMs: 2000,
  operationTimeoutMs: 4000,
  idleTimeoutMs: 60_000,
  batchesInFlight: 2,
  writeBatchesInFlight: 1,
  trustAnsweredWithinMs: 1000,
  sharedListLimitBytes: 1024 * 1024,
} satisfies PoolTuning;

/**
 * A mysql2 pool that speaks utf8mb4, returns rows as objects keyed by column, and keeps every
 * session in UTC so TIMESTAMP values read the same whatever the server's time zone.
 */
export function createPool(db: DbConfig, tuning: PoolTuning = defaultTuning): Pool {
  const pool = mysql.createPool({
    ...endpoint(db),
    user: db.user,
    password: db.password,
    database: db.database,
    charset: 'utf8mb4',
    // An UPDATE's affected rows are the rows it found, changed or not: an update to the values a row
    // already holds still proves the row exists (mysql2's default, stated because the store relies on it).
    flags: ['+FOUND_ROWS'],
    timezone: 'Z',
    dateStrings: true,
    connectionLimit: tuning.connectionLimit,
    // mysql2 runs its idle reaper only when maxIdle is below connectionLimit; without it idleTimeout does nothing.
    maxIdle: Math.max(tuning.connectionLimit - 1, 0),
    queueLimit: tuning.queueLimit,
    connectTimeout: tuning.connectTimeoutMs,
    idleTimeout: tuning.idleTimeoutMs ?? defaultTuning.idleTimeoutMs,
    enableKeepAlive: true,
    keepAliveInitialDelay: 10_000,
  });
  pool.on('connection', (connection: PoolConnection) => {
    // Queued ahead of any statement the pool hands this connection out for.
    connection.query(sql.useUtc, () => {});
    if (tuning.sessionWaitTimeoutSeconds !== undefined) {
      connection.query(sql.setWaitTimeout, [tuning.sessionWaitTimeoutSeconds], () => {});
    }
    if (tuning.sessionAutoIncrement !== undefined) {
      const { increment, offset } = tuning.sessionAutoIncrement;
      connection.query(sql.setAutoIncrementStep, [increment, offset], () => {});
    }
  });
  return pool;
}

export function endPool(pool: Pool): Promise<void> {
  return new Promise((resolve) => pool.end(() => resolve()));
}

/** Where mysql2 connects: the socket when there is one (the embedded database), else host and port. */
export function endpoint(db: DbConfig): { socketPath: string } | { host: string; port: number } {
  return db.socketPath === undefined ? { host: db.host, port: db.port } : { socketPath: db.socketPath };
}

/** The server as a log line names it. */
export function serverName(db: DbConfig): string {
  return db.socketPath ?? `${db.host}:${db.port}`;
}

export interface PoolUsage {
  /** Connections handed out and not yet released. */
  inUse: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

/** mysql2 keeps these counts in fields it does not declare; read here only, for the metrics. */
interface PoolInternals {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

export function poolUsage(pool: Pool): PoolUsage {
  const internals = pool as unknown as PoolInternals;
  const all = internals._allConnections?.length ?? 0;
  const free = internals._freeConnections?.length ?? 0;
  return { inUse: all - free, waiting: internals._connectionQueue?.length ?? 0 };
}
