import mysql, { type Connection } from 'mysql2/promise';
import type { DbConfig, Endpoint } from '../config/environment.js';
import { UnusableSchemaError } from './unusable-schema.js';

/** One connection for setting up the schema: bounded statements, and schema changes that take as long as they take. */
export interface SchemaSession {
  /** A statement the database should answer soon; a database that does not fails the attempt, which is retried. */
  query<T = Array<Record<string, unknown>>>(statement: string, values?: unknown[]): Promise<T>;
  /** A statement whose time grows with the table (an index build, a scan of every email): no time limit. */
  long<T = Array<Record<string, unknown>>>(statement: string): Promise<T>;
  /** The server's id of this session's connection (as information_schema.PROCESSLIST shows it). */
  readonly connectionId: number;
  /** A second connection to the same server, to watch this one's long statements from. */
  observer(): Promise<SchemaObserver>;
}

/** A connection that only reads what the server says of a session (build-progress.ts). */
export interface SchemaObserver {
  query<T = Array<Record<string, unknown>>>(statement: string, values?: unknown[]): Promise<T>;
  close(): void;
}

/** Each bounded set-up statement gets this long. */
const STATEMENT_TIMEOUT_MS = 10_000;

/**
 * Runs `work` on a session with the first server, in DB_HOST order, on which it completes. A
 * schema found unusable is the same on every server of a cluster, so it ends the search.
 */
export async function onFirstServer<T>(db: DbConfig, work: (session: SchemaSession) => Promise<T>, connectTimeoutMs = 5000): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await onServer(db, db.servers[i]!, work, connectTimeoutMs);
    } catch (error) {
      if (error instanceof UnusableSchemaError || i + 1 === db.servers.length) throw error;
    }
  }
}

async function onServer<T>(db: DbConfig, where: Endpoint, work: (session: SchemaSession) => Promise<T>, connectTimeoutMs: number): Promise<T> {
  const open = () =>
    mysql.createConnection({
      ...where,
      user: db.user,
      password: db.password,
      charset: 'utf8mb4',
      connectTimeout: connectTimeoutMs,
    });
  const connection = await open();
  try {
    return await work(sessionOn(connection, open));
  } finally {
    connection.destroy();
  }
}

function sessionOn(connection: Connection, open: () => Promise<Connection>): SchemaSession {
  return {
    connectionId: connection.threadId,
    observer: async () => {
      const other = await open();
      return {
        query: async <T>(statement: string, values: unknown[] = []) => {
          const [rows] = await other.query({ sql: statement, values, timeout: STATEMENT_TIMEOUT_MS });
          return rows as T;
        },
        close: () => other.destroy(),
      };
    },
    query: async <T>(statement: string, values: unknown[] = []) => {
      const [rows] = await connection.query({ sql: statement, values, timeout: STATEMENT_TIMEOUT_MS });
      return rows as T;
    },
    long: async <T>(statement: string) => {
      const [rows] = await connection.query(statement);
      return rows as T;
    },
  };
}
