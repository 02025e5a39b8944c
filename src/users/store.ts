import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2';
import { StorageError } from '../http/errors.js';
import { sql } from '../db/statements.js';
import type { UserRow } from './user.js';

export const QUERY_TIMEOUT_MS = 5000;

/** Receives the rows of a listing one at a time; `pause`/`resume` carry the consumer's backpressure. */
export interface RowSink {
  row(row: UserRow): void;
  end(): void;
  /** Called at most once, instead of `end`. `rowsSent` tells whether anything was delivered before. */
  fail(error: StorageError, rowsSent: number): void;
}

export interface RowStream {
  pause(): void;
  resume(): void;
  abort(): void;
}

/** The users table, behind the statements in db/statements.ts. Every failure is a StorageError. */
export class UserStore {
  constructor(private readonly pool: Pool) {}

  async get(id: number): Promise<UserRow | undefined> {
    const rows = await this.execute<UserRow[]>(sql.getUser, [id]);
    return rows[0];
  }

  async create(name: string, email: string): Promise<void> {
    await this.execute<ResultSetHeader>(sql.createUser, [name, email]);
  }

  /** False when no user has the id. Rows matched, not rows changed, decide (FOUND_ROWS is on). */
  async update(id: number, name: string, email: string): Promise<boolean> {
    const result = await this.execute<ResultSetHeader>(sql.updateUser, [name, email, id]);
    return result.affectedRows > 0;
  }

  async remove(id: number): Promise<boolean> {
    const result = await this.execute<ResultSetHeader>(sql.deleteUser, [id]);
    return result.affectedRows > 0;
  }

  async ping(): Promise<void> {
    await this.execute(sql.ping, []);
  }

  /** Streams every user in id order to the sink, on one connection, without buffering the table. */
  streamAll(sink: RowSink): RowStream {
    let connection: PoolConnection | undefined;
    let aborted = false;
    let rowsSent = 0;
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return;
      failed = true;
      sink.fail(new StorageError(error), rowsSent);
    };
    this.pool.getConnection((error, conn) => {
      if (error) return fail(error);
      if (aborted) return conn.release();
      connection = conn;
      conn
        .query({ sql: sql.listUsers, timeout: QUERY_TIMEOUT_MS })
        .on('result', (row) => {
          rowsSent++;
          sink.row(row as UserRow);
        })
        .on('error', (queryError: Error) => {
          fail(queryError);
        })
        .on('end', () => {
          conn.release();
          if (!failed && !aborted) sink.end();
        });
    });
    return {
      pause: () => connection?.pause(),
      resume: () => connection?.resume(),
      abort: () => {
        aborted = true;
        // The query may still be sending rows: the connection cannot be reused, so it goes.
        connection?.destroy();
      },
    };
  }

  private execute<T>(statement: string, values: unknown[]): Promise<T> {
    return new Promise((resolve, reject) => {
      this.pool.execute({ sql: statement, values, timeout: QUERY_TIMEOUT_MS }, (error, result) => {
        if (error) reject(new StorageError(error));
        else resolve(result as T);
      });
    });
  }
}
