import mysql from 'mysql2';
import type { DbConfig } from '../config/environment.js';
import { endpoint } from '../db/pool.js';
import { sql } from '../db/statements.js';

/**
 * The server's max_connections, read on a connection of its own (the first listed server, or the
 * socket), or
 * undefined when it cannot be read: the caller only warns, so nothing depends on it.
 */
export function maxConnections(db: DbConfig, timeoutMs = 2000): Promise<number | undefined> {
  return new Promise((resolve) => {
    const connection = mysql.createConnection({ ...endpoint(db), user: db.user, password: db.password, connectTimeout: timeoutMs });
    connection.on('error', () => {});
    connection.query({ sql: sql.maxConnections, timeout: timeoutMs }, (error, rows) => {
      connection.destroy();
      const value = Number((rows as Array<{ max: unknown }> | undefined)?.[0]?.max);
      resolve(error || !Number.isFinite(value) ? undefined : value);
    });
  });
}

/** The connections one instance may open to each server: every worker's pool and its health check per server. */
export function connectionsPerInstance(workers: number, poolSize: number, servers: number): number {
  return workers * (poolSize + (servers > 1 ? 1 : 0));
}
