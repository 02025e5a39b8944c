import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise';
import type { DbConfig } from '../config/environment.js';
import { firstServer } from '../config/db-servers.js';
import { sql } from '../db/statements.js';

/**
 * The server's max_connections, read on a connection of its own (the first listed server, or the
 * socket), or undefined when it cannot be read: the caller only warns, so nothing depends on it.
 */
export async function maxConnections(db: DbConfig, timeoutMs = 2000): Promise<number | undefined> {
  let connection: Connection | undefined;
  try {
    connection = await mysql.createConnection({ ...firstServer(db), user: db.user, password: db.password, connectTimeout: timeoutMs });
    connection.on('error', () => {});
    const [rows] = await connection.query<RowDataPacket[]>({ sql: sql.maxConnections, timeout: timeoutMs });
    const value = Number(rows[0]?.max);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  } finally {
    connection?.destroy();
  }
}

/** The connections one instance may open to each server: every worker's pool and its health check per server. */
export function connectionsPerInstance(workers: number, poolSize: number, servers: number): number {
  return workers * (poolSize + (servers > 1 ? 1 : 0));
}
