import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import type { DbConfig } from '../../src/config/environment.js';

/** The server tests run against: TEST_DB_* or a local MariaDB/MySQL as root without a password. */
export const testServer = {
  host: process.env.TEST_DB_HOST || '127.0.0.1',
  port: Number(process.env.TEST_DB_PORT || 3306),
  user: process.env.TEST_DB_USER || 'root',
  password: process.env.TEST_DB_PASSWORD ?? '',
};

/** `database` on the test server (or another). */
export function testDbConfig(database: string, server: typeof testServer = testServer): DbConfig {
  return { servers: [{ host: server.host, port: server.port }], user: server.user, password: server.password, database };
}

/** The same database reached on another port of 127.0.0.1: a TCP proxy's in front of the server. */
export function throughPort(config: DbConfig, port: number): DbConfig {
  return { ...config, servers: [{ host: '127.0.0.1', port }] };
}

export interface TestDatabase {
  config: DbConfig;
  /** Runs a statement in the test database on a connection of its own. */
  query<T = Record<string, unknown>[]>(statement: string, values?: unknown[]): Promise<T>;
  /** Every row of the users table, in id order. */
  users(): Promise<Array<{ id: number; name: string; email: string }>>;
  drop(): Promise<void>;
}

/**
 * A uniquely named database for one test file. It is not created here: the service under test
 * creates it on start, as in production. `drop` removes it and closes the side connection.
 */
export async function createTestDatabase(label: string, server: typeof testServer = testServer): Promise<TestDatabase> {
  const slug = label.replace(/[^a-z0-9]/gi, '_').slice(0, 24);
  const name = `usvc_${slug}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = await mysql.createConnection({ ...server, charset: 'utf8mb4', dateStrings: true });
  const query = async <T>(statement: string, values: unknown[] = []): Promise<T> => {
    await admin.query(`USE \`${name}\``);
    const [rows] = await admin.query(statement, values);
    return rows as T;
  };
  return {
    config: testDbConfig(name, server),
    query,
    users: () => query('SELECT id, name, email FROM users ORDER BY id'),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    },
  };
}
