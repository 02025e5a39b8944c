import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
/** From this size on the table is filled by one INSERT … SELECT from MariaDB's sequence engine: seconds for a million. */
const SEQUENCE_FROM_ROWS = 100_000;
/**
 * The indexes finding relies on (email, name, created_at). The service's schema migrations build
 * them on start; the benchmark adds any still missing, so the service and db-direct read the same table.
 */
const FINDING_INDEXES =
  'ADD INDEX IF NOT EXISTS users_email (email), ADD INDEX IF NOT EXISTS users_name (name), ADD INDEX IF NOT EXISTS users_created_at (created_at)';

export interface BenchDatabase {
  /** A fresh, uniquely named database; the service creates it and its table on start. */
  config: DbConfig;
  /**
   * Empties the users table and fills it with `count` users, ids 1..count. With `next: 'reads'` the
   * caller promises that only reads follow until the next reset, and a table already filled so,
   * with only reads since, is kept as it is: a million users need not be loaded for every run.
   */
  resetUsers(count: number, next?: 'reads' | 'writes'): Promise<void>;
  serverVersion(): Promise<string>;
  /** The server's process id when it runs on this machine (its pid file is readable here), for its CPU time. */
  serverPid(): Promise<number | undefined>;
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
  let indexed = false;
  /** The users the table holds untouched since it was filled with them, when only reads were promised. */
  let intact: number | undefined;
  return {
    config: { servers: servers ?? [{ host: server.host, port: server.port }], user: server.user, password: server.password, database },
    async resetUsers(count, next = 'writes') {
      if (next === 'reads' && intact === count) return;
      intact = undefined;
      if (!indexed) await addFindingIndexes(admin, table);
      indexed = true;
      await admin.query(`TRUNCATE TABLE ${table}`);
      if (count >= SEQUENCE_FROM_ROWS) await fillFromSequence(admin, database, count);
      else await fillInBatches(admin, table, count);
      if (next === 'reads') intact = count;
    },
    async serverVersion() {
      const [rows] = await admin.query('SELECT VERSION() AS version');
      return (rows as Array<{ version: string }>)[0]!.version;
    },
    async serverPid() {
      const [rows] = await admin.query('SELECT @@pid_file AS file');
      return localServerPid((rows as Array<{ file: string | null }>)[0]?.file ?? null);
    },
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
    },
  };
}

/** The pid in the server's pid file, if that file is on this machine and names a running MariaDB/MySQL server. */
function localServerPid(pidFile: string | null): number | undefined {
  try {
    const pid = Number(readFileSync(pidFile ?? '', 'utf8').trim());
    const command = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return command === 'mariadbd' || command === 'mysqld' ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function addFindingIndexes(admin: mysql.Connection, table: string): Promise<void> {
  try {
    await admin.query(`ALTER TABLE ${table} ${FINDING_INDEXES}`);
  } catch (error) {
    // MySQL knows no ADD INDEX IF NOT EXISTS: there the service's own schema is what is measured.
    if ((error as { code?: string }).code !== 'ER_PARSE_ERROR') throw error;
  }
}

async function fillInBatches(admin: mysql.Connection, table: string, count: number): Promise<void> {
  for (let first = 1; first <= count; first += INSERT_BATCH) {
    const rows: Array<[number, string, string]> = [];
    for (let i = first; i < first + INSERT_BATCH && i <= count; i++) rows.push([i, ...seededUser(i)]);
    // Ids given explicitly: a Galera cluster's auto-increment steps by the cluster size. REPLACE,
    // since a create still queued from the run before may land after the TRUNCATE and take id 1.
    await admin.query(`REPLACE INTO ${table} (id, name, email) VALUES ?`, [rows]);
  }
}

/**
 * The same users as fillInBatches, written by the database itself (seq_1_to_N is MariaDB's
 * sequence engine); the last row is compared with seededUser, so the SQL and it never drift apart.
 */
async function fillFromSequence(admin: mysql.Connection, database: string, count: number): Promise<void> {
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`cannot seed ${count} users`);
  await admin.query(
    `REPLACE INTO \`${database}\`.users (id, name, email) ` +
      `SELECT seq, CONCAT('User ', seq), CONCAT('user', seq, '@example.com') FROM \`${database}\`.seq_1_to_${count}`,
  );
  const [rows] = await admin.query(`SELECT name, email FROM \`${database}\`.users WHERE id = ?`, [count]);
  const last = (rows as Array<{ name: string; email: string }>)[0];
  if (last?.name !== seededUser(count)[0] || last.email !== seededUser(count)[1]) {
    throw new Error(`the sequence seeded user ${count} as ${JSON.stringify(last)}, not as seededUser has it`);
  }
}
