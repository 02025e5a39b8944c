import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import type { DbConfig, HostPort } from '../src/config/environment.js';
import { seededUser } from './workload.js';

/**
 * The whole table read plainly, column by column: the reference the benchmark sets beside the
 * service's own list statement (sql.listUsersAsJson). The service never sends it, so it lives here.
 */
export const plainListSql = 'SELECT id, name, email, created_at FROM users ORDER BY id';

/** Rows per multi-row INSERT when filling the table: about 0.4 MB of SQL, well under max_allowed_packet. */
const INSERT_BATCH = 10_000;

export interface BenchDatabase {
  /** A fresh, uniquely named database; the service creates it and its table on start. */
  config: DbConfig;
  /** Empties the users table and fills it with `count` users, ids 1..count. */
  resetUsers(count: number): Promise<void>;
  serverVersion(): Promise<string>;
  drop(): Promise<void>;
}

/** A server and the account to use on it. */
export interface BenchServer extends HostPort {
  user: string;
  password: string;
}

/** The MariaDB/MySQL server to use: DB_HOST, DB_PORT, DB_USER, DB_PASSWORD, else root@127.0.0.1:3306. */
export function serverFromEnv(): BenchServer {
  return {
    host: process.env.DB_HOST || '127.0.0.1',
    port: Number(process.env.DB_PORT || 3306),
    user: process.env.DB_USER || 'root',
    password: process.env.DB_PASSWORD ?? '',
  };
}

/** `server` is where the table is reset from; the service uses `servers` (a cluster's), or that server. */
export async function createBenchDatabase(server = serverFromEnv(), servers?: HostPort[]): Promise<BenchDatabase> {
  const database = `usvc_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = await mysql.createConnection({ ...server, charset: 'utf8mb4' });
  const table = `\`${database}\`.users`;
  return {
    config: { servers: servers ?? [{ host: server.host, port: server.port }], user: server.user, password: server.password, database },
    async resetUsers(count) {
      await admin.query(`TRUNCATE TABLE ${table}`);
      for (let first = 1; first <= count; first += INSERT_BATCH) {
        const rows: Array<[number, string, string]> = [];
        for (let i = first; i < first + INSERT_BATCH && i <= count; i++) rows.push([i, ...seededUser(i)]);
        // Ids given explicitly: a Galera cluster's auto-increment steps by the cluster size. REPLACE,
        // since a create still queued from the run before may land after the TRUNCATE and take id 1.
        await admin.query(`REPLACE INTO ${table} (id, name, email) VALUES ?`, [rows]);
      }
    },
    async serverVersion() {
      const [rows] = await admin.query('SELECT VERSION() AS version');
      return (rows as Array<{ version: string }>)[0]!.version;
    },
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
    },
  };
}
