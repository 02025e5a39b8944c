import mysql, { type Pool, type PoolConnection, type PoolOptions } from 'mysql2';
import { endpointName, firstServer } from '../config/db-servers.js';
import type { DbConfig, Endpoint } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { DurabilityCheck } from './durability-check.js';
import { defaultTuning, type PoolTuning } from './pool-tuning.js';
import { prepareSession } from './session.js';

/**
 * A mysql2 pool that speaks utf8mb4, returns rows as objects keyed by column, and prepares every
 * session (UTC, causal reads on Galera; see session.ts). With a logger, each new connection also
 * has the server's durability settings checked (durability-check.ts).
 */
export function createPool(db: DbConfig, tuning: PoolTuning = defaultTuning, logger?: Logger): Pool {
  const server = firstServer(db);
  const pool = mysql.createPool(poolOptions(db, server, tuning));
  const durability = logger && new DurabilityCheck(logger);
  pool.on('connection', (connection: PoolConnection) => {
    prepareSession(connection, tuning.testing);
    durability?.inspect(connection, endpointName(server));
  });
  return pool;
}

/** The options of one server's pool: `where` says which server, `db` the credentials and database. */
export function poolOptions(db: DbConfig, where: Endpoint, tuning: PoolTuning): PoolOptions {
  return {
    ...where,
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
    idleTimeout: tuning.idleTimeoutMs,
    enableKeepAlive: true,
    keepAliveInitialDelay: 10_000,
    ...(tuning.multipleStatements ? { multipleStatements: true } : {}),
  };
}

/** Ends every connection of a pool (or of a ConnectionSource, which ends the same way). */
export function endPool(pool: { end(callback: () => void): void }): Promise<void> {
  return new Promise((resolve) => pool.end(() => resolve()));
}
