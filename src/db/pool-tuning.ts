import type { SessionTesting } from './session.js';

/** Every setting of the database pool and of the store on it, each one filled (see poolTuning). */
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
  operationTimeoutMs: number;
  /** Idle connections are closed after this long, well before the server's wait_timeout drops them. */
  idleTimeoutMs: number;
  /**
   * How many batches of reads by id (and of listings) may run at once; while they run, further
   * operations of that kind gather into the next batch.
   */
  batchesInFlight: number;
  /**
   * The same for creates and for updates. One each: a write waits for its commit anyway, and the
   * writes gathered meanwhile share the next one (measured with the benchmark's `mixed` scenario).
   */
  writeBatchesInFlight: number;
  /**
   * A connection that answered within this many ms is trusted for a write without a ping first.
   * Servers that kill or time out a connection say so on the socket, and the pool drops it; only a
   * connection cut silently (no FIN, no RST) within this window can fail a write, with a 500.
   */
  trustAnsweredWithinMs: number;
  /** Concurrent listings share one read while the whole list stays under this many bytes. */
  sharedListLimitBytes: number;
  /** With several DB_HOST servers: how often each one's health is checked (ms). */
  healthCheckIntervalMs: number;
  /** With several DB_HOST servers: how long a health check may wait for its answer (ms) before the server is left out. */
  healthCheckTimeoutMs: number;
  /** With several DB_HOST servers: how long a server left out must pass every check before it is used again (ms). */
  readmitAfterMs: number;
  /** With several DB_HOST servers: how long a server whose connection failed is left out (ms). */
  nodeRetryMs: number;
  /** Connections that accept several statements separated by `;` in one query (the shared limits' own pool only). */
  multipleStatements?: boolean;
  /** Tests only; the service never sets it. */
  testing?: SessionTesting;
}

export const defaultTuning: PoolTuning = {
  connectionLimit: 10,
  queueLimit: 5000,
  connectTimeoutMs: 2000,
  operationTimeoutMs: 4000,
  idleTimeoutMs: 60_000,
  batchesInFlight: 2,
  writeBatchesInFlight: 1,
  trustAnsweredWithinMs: 1000,
  sharedListLimitBytes: 1024 * 1024,
  healthCheckIntervalMs: 1000,
  healthCheckTimeoutMs: 1000,
  readmitAfterMs: 3000,
  nodeRetryMs: 1000,
};

/** The tuning with every setting not given at its default: the one place defaults are filled in. */
export function poolTuning(given: Partial<PoolTuning> = {}): PoolTuning {
  return { ...defaultTuning, ...given };
}
