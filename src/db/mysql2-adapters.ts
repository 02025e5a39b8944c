import type { PoolConnection } from 'mysql2';
import type { ConnectionSource } from './connection-source.js';
import { DatabaseTimeoutError, type Deadline } from './deadline.js';
import { whenLeft } from './node-left.js';
import { statementSpan } from '../tracing/statement-spans.js';

/** mysql2's callback API, each call bounded by a Deadline. */

/**
 * A pooled connection, or an error once the deadline passes. mysql2 has no way to withdraw a
 * queued request, so a connection that arrives after the deadline goes straight back to the pool.
 */
export function acquire(pool: ConnectionSource, deadline: Deadline): Promise<PoolConnection> {
  return new Promise((resolve, reject) => {
    if (deadline.remainingMs() === 0) return reject(new DatabaseTimeoutError('No time left to wait for a connection', false));
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(new DatabaseTimeoutError('Timed out waiting for a database connection', false));
    }, deadline.remainingMs());
    pool.getConnection((error, connection) => {
      if (settled) {
        if (!error) pool.giveBack(connection, false);
        return;
      }
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(connection);
    });
  });
}

/**
 * Waits for one mysql2 callback until the deadline, or until the cluster leaves the connection's
 * server (node-left.ts). Past either the connection is destroyed: a late answer would arrive in the
 * middle of the next statement's exchange.
 */
function withinDeadline<T>(
  connection: PoolConnection,
  deadline: Deadline,
  statement: string,
  start: (done: (error: Error | null, result?: T) => void) => void,
): Promise<T> {
  // A statement of a sampled request: its span, once it is answered (or not).
  const traced = deadline.trace && statementSpan(deadline.trace, statement, connection.config);
  return new Promise((resolve, reject) => {
    let settled = false;
    let stopWatching = (): void => {};
    const giveUp = (error: Error): void => {
      traced?.(error);
      settled = true;
      clearTimeout(timer);
      stopWatching();
      connection.destroy();
      reject(error);
    };
    const timer = setTimeout(() => giveUp(new DatabaseTimeoutError('The database did not answer in time', true)), deadline.remainingMs());
    stopWatching = whenLeft(connection, giveUp);
    if (settled) return;
    start((error, result) => {
      if (settled) return;
      traced?.(error);
      settled = true;
      clearTimeout(timer);
      stopWatching();
      if (error) reject(error);
      else resolve(result as T);
    });
  });
}

/** Runs one prepared statement on the connection, bounded by the deadline. */
export function execute<T>(connection: PoolConnection, statement: string, values: unknown[], deadline: Deadline): Promise<T> {
  return withinDeadline<T>(connection, deadline, statement, (done) =>
    connection.execute({ sql: statement, values }, (error, result) => done(error, result as T)),
  );
}

/** Runs statements over the text protocol (several, separated by `;`, on a connection that allows them), bounded by the deadline. */
export function query<T>(connection: PoolConnection, statement: string, values: unknown[], deadline: Deadline): Promise<T> {
  return withinDeadline<T>(connection, deadline, statement, (done) => connection.query({ sql: statement, values }, (error, result) => done(error, result as T)));
}

/**
 * Runs one statement over the text protocol, every column left as the bytes the server sent (or
 * null), bounded by the deadline: for rows the caller turns into JSON without decoding them.
 */
export function queryUndecoded<T>(connection: PoolConnection, statement: string, values: unknown[], deadline: Deadline): Promise<T> {
  return withinDeadline<T>(connection, deadline, statement, (done) =>
    connection.query({ sql: statement, values, typeCast: false }, (error, result) => done(error, result as T)),
  );
}

/** Starts, commits or rolls back the connection's transaction (mysql2's own commands), bounded by the deadline. */
export function transactionStep(connection: PoolConnection, step: 'beginTransaction' | 'commit' | 'rollback', deadline: Deadline): Promise<void> {
  return withinDeadline<void>(connection, deadline, step === 'beginTransaction' ? 'BEGIN' : step.toUpperCase(), (done) => connection[step]((error) => done(error)));
}

/** Proves the connection is alive before a statement is trusted to it; a failure means nothing was sent. */
export function ping(connection: PoolConnection, deadline: Deadline): Promise<void> {
  return withinDeadline<void>(connection, deadline, 'PING', (done) => connection.ping((error) => done(error)));
}
