import { once } from 'node:events';
import type { Readable } from 'node:stream';
import type { PoolConnection } from 'mysql2';
import { DatabaseTimeoutError, type Deadline } from './deadline.js';

/**
 * A query's rows streamed on `connection`, undecoded: each column arrives as the bytes the server
 * sent (text protocol), or null. The stream's own back-pressure pauses the connection. The
 * connection goes back to the pool once the statement is over (a statement error leaves it usable)
 * and is destroyed if the stream is cut short first, since the query may still be sending. The
 * database may fall silent until the deadline before the first row and for `silenceMs` after it;
 * a consumer holding rows back is not silence.
 */
export function rowStream(connection: PoolConnection, statement: string, values: unknown[], deadline: Deadline, silenceMs: number): Readable {
  const query = connection.query({ sql: statement, values, typeCast: false });
  const rows = query.stream();
  let over = false;
  let received = 0;
  let receivedAtCheck = 0;
  // A lost connection is reported on the connection, not on a query that has no callback.
  const lost = (error: Error): void => void rows.destroy(error);
  const leave = (): void => {
    over = true;
    clearTimeout(watchdog);
    connection.off('error', lost);
  };
  // One timer per silence limit, not per row.
  const check = (): void => {
    const heldBack = rows.readableLength >= rows.readableHighWaterMark;
    if (received === receivedAtCheck && !heldBack) return void rows.destroy(new DatabaseTimeoutError('The database stopped sending rows'));
    receivedAtCheck = received;
    watchdog = setTimeout(check, silenceMs);
  };
  let watchdog = setTimeout(check, deadline.remainingMs());

  connection.on('error', lost);
  query.on('result', () => void received++);
  // The stream reports statement errors while it lasts; one arriving after it was cut short must
  // still have a listener, or it would be thrown.
  query.on('error', () => {});
  query.on('end', () => {
    if (over) return;
    leave();
    connection.release();
  });
  rows.once('close', () => {
    if (over) return;
    leave();
    connection.destroy();
  });
  return rows;
}

/** Resolves once the stream holds its first row or has ended; rejects if it fails or `signal` aborts first. */
export async function firstRow(rows: Readable, signal?: AbortSignal): Promise<void> {
  try {
    await once(rows, 'readable', { signal });
  } catch (error) {
    rows.destroy();
    throw error;
  }
}
