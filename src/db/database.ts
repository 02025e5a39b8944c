import { setTimeout as sleep } from 'node:timers/promises';
import type { PoolConnection, ResultSetHeader } from 'mysql2';
import type { ConnectionSource } from './connection-source.js';
import { Deadline } from './deadline.js';
import { isConnectionLost, retryPauseMs, storageError, wasRolledBack } from './mysql-errors.js';
import { acquire, execute, ping, query, queryUndecoded, transactionStep } from './mysql2-adapters.js';
import type { StopSignal } from './stop-signal.js';
import type { SpanScope } from '../tracing/span-scope.js';
import { encodedRows, type EncodedRows, type OpenedRows, type RowEncoder } from './row-stream.js';

/** One statement inside a transaction; a statement with RETURNING resolves to its rows. */
export type StatementRunner = <R = ResultSetHeader>(statement: string, values: unknown[]) => Promise<R>;

/**
 * Statements on the pool, each bounded by one time budget (waiting for a connection included).
 * Reads broken by a lost connection are repeated once; writes never are, since they may have
 * been applied, but run only on a connection that answered recently or answers a ping first.
 * A statement the server rolled back whole (a deadlock, a Galera certification conflict; a node
 * not ready yet, unless a write or its commit had reached it; see mysql-errors.ts) runs again after
 * a short random pause, while the budget lasts.
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

  /** The time budget of an operation asked for at `since` (a performance.now() reading), waiting included; `trace`, the spans it serves. */
  deadlineSince(since: number, trace?: SpanScope): Deadline {
    return new Deadline(this.budgetMs, since, trace);
  }

  read<T>(statement: string, values: unknown[], deadline = new Deadline(this.budgetMs)): Promise<T> {
    return this.retried(deadline, (validate) => this.runOn<T>(validate, statement, values, deadline));
  }

  /** A read whose columns stay the bytes the server sent (text protocol), for a bounded result the caller encodes itself. */
  readUndecoded<T>(statement: string, values: unknown[], deadline = new Deadline(this.budgetMs)): Promise<T> {
    return this.retried(deadline, (validate) => this.runOn<T>(validate, statement, values, deadline, queryUndecoded));
  }

  /**
   * Statements over the text protocol whose effect is the same however often they run (writes of
   * absolute values, reads): repeated like a read when the connection was lost.
   */
  repeatable<T>(statement: string, values: unknown[], deadline = new Deadline(this.budgetMs)): Promise<T> {
    return this.retried(deadline, (validate) => this.runOn<T>(validate, statement, values, deadline, query));
  }

  /** A write; a statement with RETURNING resolves to its rows (T) instead of the result header. */
  async write<T = ResultSetHeader>(statement: string, values: unknown[], deadline = new Deadline(this.budgetMs)): Promise<T> {
    try {
      return await this.runAgainIfRolledBack(deadline, () => this.runOn<T>(true, statement, values, deadline), () => true);
    } catch (error) {
      throw storageError(error, true);
    }
  }

  /**
   * `work`'s statements in one transaction on one connection known to be alive, committed when it
   * resolves to a value `keep` accepts and rolled back otherwise (or when it throws). It runs again
   * from the start, while the budget lasts, when nothing of it can have been committed: the server
   * rolled it back whole (a deadlock, a Galera certification conflict), or the connection was lost
   * before the commit was sent (the server rolls back what it had; on a cluster, the next attempt
   * goes to a node that answers). A connection lost during the commit is never retried: the commit
   * may have happened. Every failure is a StorageError.
   */
  async transaction<T>(work: (run: StatementRunner) => Promise<T>, deadline = new Deadline(this.budgetMs), keep: (value: T) => boolean = () => true): Promise<T> {
    try {
      for (;;) {
        let committing = false;
        try {
          return await this.runAgainIfRolledBack(deadline, async () => {
            committing = false;
            const connection = await this.connectionFor(true, deadline);
            let value: T;
            try {
              await transactionStep(connection, 'beginTransaction', deadline);
              value = await work((statement, values) => execute(connection, statement, values, deadline));
              const commit = keep(value);
              committing = commit;
              await transactionStep(connection, commit ? 'commit' : 'rollback', deadline);
            } catch (error) {
              await this.rollBack(connection, error, deadline);
              throw error;
            }
            this.giveBackAnswered(connection);
            return value;
          }, () => committing);
        } catch (error) {
          if (committing || !isConnectionLost(error) || deadline.remainingMs() === 0) throw error;
        }
      }
    } catch (error) {
      throw storageError(error, true);
    }
  }

  /** After a failure inside a transaction: rolled back and returned, or destroyed when it cannot be. */
  private async rollBack(connection: PoolConnection, error: unknown, deadline: Deadline): Promise<void> {
    if (isConnectionLost(error)) return this.giveBack(connection, error);
    this.pool.failed?.(connection, error);
    try {
      await transactionStep(connection, 'rollback', deadline);
      this.pool.giveBack(connection, false);
    } catch {
      this.pool.giveBack(connection, true);
    }
  }

  /**
   * A query's rows encoded into chunks on one connection (see encodedRows), once the first chunk is
   * full or the result ended: a connection lost before the first row is retried once, like any
   * read, and a statement rolled back before it (a Galera node not ready) runs again while the
   * budget lasts. Rejects with a StorageError, also when `stop` fires first; afterwards `stop`
   * destroys the chunks still to come.
   */
  async stream<Row>(statement: string, values: unknown[], encoder: RowEncoder<Row>, deadline = new Deadline(this.budgetMs), stop?: StopSignal): Promise<OpenedRows> {
    let rows: EncodedRows | undefined;
    stop?.onStop((reason) => rows?.abort(reason));
    try {
      rows = await this.retried(deadline, async (validate) => {
        const connection = await this.connectionFor(validate, deadline);
        if (stop?.reason) {
          this.pool.giveBack(connection, false);
          throw stop.reason;
        }
        rows = encodedRows(this.pool, connection, statement, values, encoder, deadline, this.budgetMs);
        await rows.started;
        return rows;
      });
      let opened: OpenedRows;
      try {
        opened = await rows.opened;
      } catch (error) {
        throw storageError(error, false);
      }
      const rest = opened.rest;
      stop?.onStop(rest && ((reason) => rest.destroy(reason)));
      return opened;
    } catch (error) {
      stop?.onStop(undefined);
      throw error;
    }
  }

  /** `run` once more on a validated connection if the first lost its connection; every failure a StorageError. */
  private async retried<T>(deadline: Deadline, run: (validate: boolean) => Promise<T>): Promise<T> {
    try {
      try {
        return await this.runAgainIfRolledBack(deadline, () => run(false));
      } catch (error) {
        if (!isConnectionLost(error)) throw error;
      }
      return await this.runAgainIfRolledBack(deadline, () => run(true));
    } catch (error) {
      throw storageError(error, false);
    }
  }

  /** `changeSent` tells, once `run` failed, whether a change had reached the server (see wasRolledBack). */
  private async runAgainIfRolledBack<T>(deadline: Deadline, run: () => Promise<T>, changeSent = () => false): Promise<T> {
    for (;;) {
      try {
        return await run();
      } catch (error) {
        const pause = retryPauseMs();
        if (!wasRolledBack(error, changeSent()) || deadline.remainingMs() <= pause) throw error;
        await sleep(pause);
      }
    }
  }

  private async runOn<T>(validate: boolean, statement: string, values: unknown[], deadline: Deadline, run = execute<T>): Promise<T> {
    const connection = await this.connectionFor(validate, deadline);
    try {
      const result = await run(connection, statement, values, deadline);
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
    this.pool.failed?.(connection, error);
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
