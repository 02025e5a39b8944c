import type { Pool, PoolConnection } from 'mysql2';
import { isCluster } from '../config/db-servers.js';
import type { DbConfig } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { ClusterSource } from './cluster/cluster-source.js';
import { createPool, poolUsage, type PoolUsage } from './pool.js';
import type { PoolTuning } from './pool-tuning.js';

/**
 * Where the store gets its connections: one mysql2 pool for one server, or a cluster of servers
 * (src/db/cluster/). Both hand out pooled connections and end them all on `end`.
 */
export interface ConnectionSource {
  getConnection(callback: (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void): void;
  end(callback: () => void): void;
}

/** One pool for one server (as DB_HOST has always meant); a ClusterSource when DB_HOST lists several. */
export function createConnectionSource(db: DbConfig, tuning: PoolTuning, logger?: Logger): ConnectionSource {
  return isCluster(db) ? new ClusterSource(db, tuning, logger) : createPool(db, tuning);
}

/** Connections in use and requests waiting, over every server's pool (for the metrics). */
export function sourceUsage(source: ConnectionSource): PoolUsage {
  return source instanceof ClusterSource ? source.usage() : poolUsage(source as Pool);
}
