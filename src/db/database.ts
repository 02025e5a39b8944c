import { setTimeout as sleep } from 'node:timers/promises';
import type { PoolConnection, ResultSetHeader } from 'mysql2';
import type { StorageError } from '../errors/storage-error.js';
import type { ConnectionSource } from './connection-source.js';
import { Deadline, DatabaseTimeoutError } from './deadline.js';
import { isConnectionLost, retryPauseMs, storageError, wasRolledBack } from './mysql-errors.js';
import { acquire, execute, ping } from './mysql2-adapters.js';

/** Receives the rows of a streamed query one at a time; `pause`/`resume` carry the consumer's backpressure. */
export interface RowSink<Row> {
  row(row: Row): void;
  end(): void;
  /** Called at most once, instead of `end`. `rowsSent` tells whether anything was delivered before. */
  fail(error: StorageError, rowsSent: number): void;
}

export interface RowStream {
  pause(): void;
  resume(): void;
  abort(): void;
}

/**
 * Statements on the pool, each bounded by one time budget (waiting for a connection included).
 * Reads broken by a lost connection are repeated once; writes never are, since they may have
 * been applied, but run only on a connection that answered recently or answers a ping first.
 * A statement the server rolled back whole (a deadlock, a Galera certification conflict, a node
 * not ready yet; see mysql-errors.ts) runs again after a short random pause, while the budget lasts.
 * Every failure is a StorageError.
 */
export class Database {
  /** When each connection last answered: one that answered within `trustMs` is not pinged again. */
  private readonly lastAnswer = new WeakMap<PoolConnection, number>();

  constructor(
    private readonly pool: ConnectionSource,
    private readonly budgetMs: number,
    private readonly trustMs: number,
  ) {}

  /** The time budget of an operation asked for at `since` (a performance.now() reading), waiting included. */
  deadlineSince(since: number): Deadline {
    return new Deadline(this.budgetMs, since);
  }

  async read<T>(statement: string, values: unknown[], deadline = new Deadline(this.budgetMs)): Promise<T> {
    try {
      try {
        return await this.runAgainIfRolledBack<T>(false, statement, values, deadline);
      } catch (error) {
        if (!isConnectionLost(error)) throw error;
      }
      return await this.runAgainIfRolledBack<T>(true, statement, values, deadline);
    } catch (error) {
      throw storageError(error, false);
    }
  }

  /** A write; a statement with RETURNING resolves to its rows (T) instead of the result header. */
  async write<T = ResultSetHeader>(statement: string, values: unknown[], deadline = new Deadline(this.budgetMs)): Promise<T> {
    try {
      return await this.runAgainIfRolledBack<T>(true, statement, values, deadline);
    } catch (error) {
      throw storageError(error, true);
    }
  }

  /**
   * Streams a query's rows to the sink on one connection, without buffering the result or decoding
   * it: each column arrives as the bytes the server sent (text protocol), or null. The
   * database may fall silent for at most the budget (pauses the sink asked for do not count); a
   * connection lost before the first row is retried once, like any read, and a statement rolled
   * back before it (a Galera node not ready) runs again while the budget lasts.
   */
  stream<Row>(statement: string, sink: RowSink<Row>, deadline = new Deadline(this.budgetMs), values: unknown[] = []): RowStream {
    let current: PoolConnection | undefined;
    let stopped = false;
    let paused = false;
    let rowsSent = 0;
    let rowsAtLastCheck = 0;
    let watchdog: NodeJS.Timeout | undefined;
    let onSilence = (): void => {};

    const fail = (error: unknown): void => {
      if (stopped) return;
      stopped = true;
      clearTimeout(watchdog);
      sink.fail(storageError(error, false), rowsSent);
    };
    // One timer per budget, not per row: silence is a whole budget without a new row.
    const watch = (): void => {
      clearTimeout(watchdog);
      if (paused || stopped || !current) return;
      rowsAtLastCheck = rowsSent;
      watchdog = setTimeout(check, rowsSent === 0 ? deadline.remainingMs() : this.budgetMs);
    };
    const check = (): void => {
      if (paused || stopped) return;
      if (rowsSent === rowsAtLastCheck) onSilence();
      else watch();
    };

    const attempt = (validate: boolean, mayRetry: boolean): void => {
      this.connectionFor(validate, deadline).then((conn) => {
        if (stopped) return this.pool.giveBack(conn, false);
        current = conn;
        let over = false;
        const finish = (broken: boolean): void => {
          over = true;
          clearTimeout(watchdog);
          conn.off('error', onLost);
          current = undefined;
          this.pool.giveBack(conn, broken);
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
          fail(new DatabaseTimeoutError('The database stopped sending rows', true));
        };
        conn.on('error', onLost);
        watch();
        let againAfterPause: number | undefined;
        conn
          .query({ sql: statement, values, typeCast: false })
          .on('result', (row) => {
            if (over || stopped) return;
            rowsSent++;
            sink.row(row as Row);
          })
          // A statement error leaves the connection usable: the 'end' that follows releases it.
          .on('error', (error: Error) => {
            if (isConnectionLost(error)) return onLost(error);
            const pause = retryPauseMs();
            if (rowsSent === 0 && !stopped && wasRolledBack(error) && deadline.remainingMs() > pause) againAfterPause = pause;
            else fail(error);
          })
          .on('end', () => {
            if (over) return;
            finish(false);
            if (againAfterPause !== undefined) {
              setTimeout(() => {
                if (!stopped) attempt(true, mayRetry);
              }, againAfterPause);
              return;
            }
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
        clearTimeout(watchdog);
        current?.pause();
      },
      resume: () => {
        paused = false;
        current?.resume();
        watch();
      },
      abort: () => {
        stopped = true;
        clearTimeout(watchdog);
        // The query may still be sending rows: the connection cannot be reused, so it goes.
        if (current) this.pool.giveBack(current, true);
      },
    };
  }

  private async runAgainIfRolledBack<T>(validate: boolean, statement: string, values: unknown[], deadline: Deadline): Promise<T> {
    for (;;) {
      try {
        return await this.runOn<T>(validate, statement, values, deadline);
      } catch (error) {
        const pause = retryPauseMs();
        if (!wasRolledBack(error) || deadline.remainingMs() <= pause) throw error;
        await sleep(pause);
      }
    }
  }

  private async runOn<T>(validate: boolean, statement: string, values: unknown[], deadline: Deadline): Promise<T> {
    const connection = await this.connectionFor(validate, deadline);
    try {
      const result = await execute<T>(connection, statement, values, deadline);
      this.giveBackAnswered(connection);
      return result;
    } catch (error) {
      this.giveBack(connection, error);
      throw error;
    }
  }

  private giveBackAnswered(connection: PoolConnection): void {
    this.lastAnswer.set(connection, performance.now());
    this.pool.giveBack(connection, false);
  }

  /** Back to the pool, unless the connection broke: then it is destroyed, so it is never handed out again. */
  private giveBack(connection: PoolConnection, error: unknown): void {
    this.pool.giveBack(connection, isConnectionLost(error));
  }

  /**
   * A pooled connection; when `validate`, one known to be alive: it answered within `trustMs`, or
   * it answers a ping now. Dead ones are skipped until the deadline.
   */
  private async connectionFor(validate: boolean, deadline: Deadline): Promise<PoolConnection> {
    for (;;) {
      const connection = await acquire(this.pool, deadline);
      if (!validate || performance.now() - (this.lastAnswer.get(connection) ?? -Infinity) < this.trustMs) {
        return connection;
      }
      try {
        await ping(connection, deadline);
        return connection;
      } catch (error) {
        this.giveBack(connection, error);
        if (!isConnectionLost(error)) throw error;
      }
    }
  }
}
