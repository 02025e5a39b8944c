import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2';
import { StorageError } from '../http/errors.js';
import { acquire, Deadline, DatabaseTimeoutError, execute, isConnectionLost, ping } from '../db/deadline.js';
import { defaultTuning } from '../db/pool.js';
import { sql } from '../db/statements.js';
import type { UserRow } from './user.js';

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
  /** `budgetMs` bounds each operation, waiting for a connection included, and each silence of a listing. */
  constructor(
    private readonly pool: Pool,
    private readonly budgetMs = defaultTuning.operationTimeoutMs,
  ) {}

  async get(id: number): Promise<UserRow | undefined> {
    const rows = await this.read<UserRow[]>(sql.getUser, [id]);
    return rows[0];
  }

  async create(name: string, email: string): Promise<void> {
    await this.write(sql.createUser, [name, email]);
  }

  /** False when no user has the id. Rows matched, not rows changed, decide (FOUND_ROWS is on). */
  async update(id: number, name: string, email: string): Promise<boolean> {
    const result = await this.write(sql.updateUser, [name, email, id]);
    return result.affectedRows > 0;
  }

  async remove(id: number): Promise<boolean> {
    const result = await this.write(sql.deleteUser, [id]);
    return result.affectedRows > 0;
  }

  async ping(): Promise<void> {
    await this.read(sql.ping, []);
  }

  /**
   * Streams every user in id order to the sink, on one connection, without buffering the table.
   * The database may fall silent for at most the budget (not counting pauses the sink asked for);
   * a connection lost before the first row is retried once, like any read.
   */
  streamAll(sink: RowSink): RowStream {
    const deadline = new Deadline(this.budgetMs);
    let current: PoolConnection | undefined;
    let stopped = false;
    let paused = false;
    let rowsSent = 0;
    let silence: NodeJS.Timeout | undefined;
    let onSilence = (): void => {};
    let lastActivity = 0;
    let allowedSilence = 0;

    const fail = (error: unknown): void => {
      if (stopped) return;
      stopped = true;
      clearTimeout(silence);
      sink.fail(new StorageError(error), rowsSent);
    };
    // One timer per silence, not per row: a row only notes the time, the timer re-arms for the rest.
    const checkSilence = (): void => {
      if (paused || stopped || !current) return;
      const quiet = performance.now() - lastActivity;
      if (quiet < allowedSilence) silence = setTimeout(checkSilence, allowedSilence - quiet);
      else onSilence();
    };
    const watchSilence = (): void => {
      clearTimeout(silence);
      lastActivity = performance.now();
      // Before the first row the operation's deadline still applies; after it, each silence gets the budget.
      allowedSilence = rowsSent === 0 ? deadline.remainingMs() : this.budgetMs;
      if (!paused && !stopped && current) silence = setTimeout(checkSilence, allowedSilence);
    };

    const attempt = (validate: boolean, mayRetry: boolean): void => {
      this.connectionFor(validate, deadline).then((conn) => {
        if (stopped) return conn.release();
        current = conn;
        let over = false;
        const finish = (broken: boolean): void => {
          over = true;
          clearTimeout(silence);
          conn.off('error', onLost);
          current = undefined;
          if (broken) conn.destroy();
          else conn.release();
        };
        // A lost connection is reported on the connection, not on a query that has no callback.
        const onLost = (error: Error): void => {
          if (over) return;
          finish(true);
          if (mayRetry && rowsSent === 0 && !stopped && isConnectionLost(error)) attempt(true, false);
          else fail(error);
        };
        onSilence = () => {
          if (over) return;
          finish(true);
          fail(new DatabaseTimeoutError('The database stopped sending the listing'));
        };
        conn.on('error', onLost);
        watchSilence();
        conn
          .query(sql.listUsers)
          .on('result', (row) => {
            if (over || stopped) return;
            rowsSent++;
            lastActivity = performance.now();
            allowedSilence = this.budgetMs;
            sink.row(row as UserRow);
          })
          // A statement error leaves the connection usable: the 'end' that follows releases it.
          .on('error', (error: Error) => (isConnectionLost(error) ? onLost(error) : fail(error)))
          .on('end', () => {
            if (over) return;
            finish(false);
            if (stopped) return;
            stopped = true;
            sink.end();
          });
      }, fail);
    };
    attempt(false, true);

    return {
      pause: () => {
        paused = true;
        clearTimeout(silence);
        current?.pause();
      },
      resume: () => {
        paused = false;
        current?.resume();
        watchSilence();
      },
      abort: () => {
        stopped = true;
        clearTimeout(silence);
        // The query may still be sending rows: the connection cannot be reused, so it goes.
        current?.destroy();
      },
    };
  }

  /** A read broken by a lost connection is safe to repeat: once more, on a connection proven alive. */
  private async read<T>(statement: string, values: unknown[]): Promise<T> {
    const deadline = new Deadline(this.budgetMs);
    try {
      const connection = await this.connectionFor(false, deadline);
      try {
        const rows = await execute<T>(connection, statement, values, deadline);
        connection.release();
        return rows;
      } catch (error) {
        giveBack(connection, error);
        if (!isConnectionLost(error)) throw error;
      }
      return await this.runOn<T>(true, statement, values, deadline);
    } catch (error) {
      throw new StorageError(error);
    }
  }

  /**
   * A write is never repeated once sent: it may have been applied. Its connection is proven alive
   * first, so a connection the server already dropped costs a retry, not a failed write.
   */
  private async write(statement: string, values: unknown[]): Promise<ResultSetHeader> {
    try {
      return await this.runOn<ResultSetHeader>(true, statement, values, new Deadline(this.budgetMs));
    } catch (error) {
      throw new StorageError(error);
    }
  }

  private async runOn<T>(validate: boolean, statement: string, values: unknown[], deadline: Deadline): Promise<T> {
    const connection = await this.connectionFor(validate, deadline);
    try {
      const result = await execute<T>(connection, statement, values, deadline);
      connection.release();
      return result;
    } catch (error) {
      giveBack(connection, error);
      throw error;
    }
  }

  /** A pooled connection; when `validate`, one that answered a ping, skipping dead ones until the deadline. */
  private async connectionFor(validate: boolean, deadline: Deadline): Promise<PoolConnection> {
    for (;;) {
      const connection = await acquire(this.pool, deadline);
      if (!validate) return connection;
      try {
        await ping(connection, deadline);
        return connection;
      } catch (error) {
        giveBack(connection, error);
        if (!isConnectionLost(error)) throw error;
      }
    }
  }
}

/** Back to the pool, unless the connection broke: then it is destroyed, so it is never handed out again. */
function giveBack(connection: PoolConnection, error: unknown): void {
  if (isConnectionLost(error)) connection.destroy();
  else connection.release();
}
