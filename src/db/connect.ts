import { isCluster } from '../config/db-servers.js';
import type { DbConfig } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { ClusterPool } from './cluster/cluster-pool.js';
import type { ConnectionSource } from './connection-source.js';
import { CountingSource } from './counting-source.js';
import { createPool } from './pool.js';
import type { PoolTuning } from './pool-tuning.js';

/** The service's connections: one pool for one server, a ClusterPool when DB_HOST lists several; counted for the metrics. */
export function createConnectionSource(db: DbConfig, tuning: PoolTuning, logger?: Logger): ConnectionSource {
  return new CountingSource(isCluster(db) ? new ClusterPool(db, tuning, logger) : createPool(db, tuning, logger));
}
