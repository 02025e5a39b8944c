import type { PoolConnection } from 'mysql2';
import { isCluster } from '../config/db-servers.js';
import type { DbConfig } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { ClusterPool } from './cluster/cluster-pool.js';
import { CountingSource } from './counting-source.js';
import { createPool } from './pool.js';
import type { PoolTuning } from './pool-tuning.js';

export type ConnectionCallback = (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void;

/** What hands out pooled connections: one server's mysql2 pool, or a cluster of servers (src/db/cluster/). */
export interface ConnectionPool {
  getConnection(callback: ConnectionCallback): void;
  end(callback: () => void): void;
}

export interface PoolUsage {
  /** Connections handed out and not yet given back. */
  inUse: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

/** Where the store gets its connections, and gives each one back, counted (for the metrics). */
export interface ConnectionSource extends ConnectionPool {
  /** Takes back a connection getConnection handed out: for the next request, or closed for good when `broken`. */
  giveBack(connection: PoolConnection, broken: boolean): void;
  usage(): PoolUsage;
}

/** One pool for one server; a ClusterPool when DB_HOST lists several. */
export function createConnectionSource(db: DbConfig, tuning: PoolTuning, logger?: Logger): ConnectionSource {
  return new CountingSource(isCluster(db) ? new ClusterPool(db, tuning, logger) : createPool(db, tuning));
}
