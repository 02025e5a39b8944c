import mysql, { type Pool, type PoolConnection } from 'mysql2';
import type { DbConfig } from '../config.js';
import { sql } from './statements.js';

export interface PoolTuning {
  connectionLimit: number;
  /** Requests waiting for a connection beyond this many are refused instead of queued. */
  queueLimit: number;
  connectTimeoutMs: number;
}

export const defaultTuning: PoolTuning = { connectionLimit: 10, queueLimit: 5000, connectTimeoutMs: 5000 };

/**
 * A mysql2 pool that speaks utf8mb4, returns rows as objects keyed by column, and keeps every
 * session in UTC so TIMESTAMP values read the same whatever the server's time zone.
 */
export function createPool(db: DbConfig, tuning: PoolTuning = defaultTuning): Pool {
  const pool = mysql.createPool({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: db.database,
    charset: 'utf8mb4',
    timezone: 'Z',
    dateStrings: true,
    connectionLimit: tuning.connectionLimit,
    maxIdle: tuning.connectionLimit,
    queueLimit: tuning.queueLimit,
    connectTimeout: tuning.connectTimeoutMs,
    idleTimeout: 60_000,
    enableKeepAlive: true,
    keepAliveInitialDelay: 10_000,
  });
  pool.on('connection', (connection: PoolConnection) => {
    // Queued ahead of any statement the pool hands this connection out for.
    connection.query(sql.useUtc, () => {});
  });
  return pool;
}

export function endPool(pool: Pool): Promise<void> {
  return new Promise((resolve) => pool.end(() => resolve()));
}
