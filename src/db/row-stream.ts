import { Readable } from 'node:stream';
import type { PoolConnection } from 'mysql2';
import type { ConnectionSource } from './connection-source.js';
import { DatabaseTimeoutError, type Deadline } from './deadline.js';

/** Turns a query's rows into the bytes of a stream: `add` returns a chunk once one is full, `end` the last bytes. */
export interface RowEncoder<Row> {
  add(row: Row): Buffer | undefined;
  end(): Buffer;
}

/** A streamed query's encoded rows, and when its first row (or its end) arrived. */
export interface EncodedRows {
  chunks: Readable;
  started: Promise<void>;
}

/**
 * A query's rows on `connection`, undecoded (each column the bytes the server sent, text
 * protocol, or null), encoded into chunks as they arrive. Rows go into the encoder as mysql2 emits
 * them, not through a stream write each (which took a 1000-row list two thirds more CPU).
 * The chunks' back-pressure pauses the connection (push returns false; the stream asks for more
 * through read). The connection goes back to the pool when the statement is over (a statement
 * error leaves it usable) and is destroyed if the stream is cut short first, since the query may
 * still be sending. The database may fall silent until the deadline before the first row and for
 * `silenceMs` after it; a reader holding chunks back is not silence.
 */
export function encodedRows<Row>(
  pool: ConnectionSource,
  connection: PoolConnection,
  statement: string,
  values: unknown[],
  encoder: RowEncoder<Row>,
  deadline: Deadline,
  silenceMs: number,
): EncodedRows {
  let over = false;
  let received = 0;
  let receivedAtCheck = 0;
  let statementError: Error | undefined;
  let started!: () => void;
  let failedFirst!: (error: Error) => void;
  const start = new Promise<void>((resolve, reject) => {
    started = resolve;
    failedFirst = reject;
  });

  const leave = (): void => {
    over = true;
    clearTimeout(watchdog);
    connection.off('error', lost);
  };
  const chunks = new Readable({
    // No full chunk waits unread while more rows are taken: memory stays at a chunk or two, and a
    // first chunk read together with the end is the whole result.
    highWaterMark: 0,
    read: () => connection.resume(),
    destroy(error, done) {
      if (!over) {
        leave();
        pool.giveBack(connection, true);
      }
      failedFirst(error ?? new Error('The rows were closed before the first arrived'));
      done(error);
    },
  });
  // Whoever reads the chunks learns of a failure from them (pipeline, once); one that comes before
  // anyone listens must not be thrown.
  chunks.on('error', () => {});
  // A lost connection is reported on the connection, not on a query that has no callback.
  const lost = (error: Error): void => void chunks.destroy(error);
  // One timer per silence limit, not per row.
  const check = (): void => {
    const heldBack = chunks.readableLength > 0;
    if (received === receivedAtCheck && !heldBack) return void chunks.destroy(new DatabaseTimeoutError('The database stopped sending rows', true));
    receivedAtCheck = received;
    watchdog = setTimeout(check, silenceMs);
  };
  let watchdog = setTimeout(check, deadline.remainingMs());
  connection.on('error', lost);

  connection
    .query({ sql: statement, values, typeCast: false })
    .on('result', (row) => {
      if (over) return;
      if (received++ === 0) started();
      let full: Buffer | undefined;
      try {
        full = encoder.add(row as Row);
      } catch (error) {
        return void chunks.destroy(error as Error);
      }
      if (full && !chunks.push(full)) connection.pause();
    })
    // A statement error leaves the connection usable: the 'end' that follows releases it.
    .on('error', (error: Error) => void (statementError = error))
    .on('end', () => {
      if (over) return;
      leave();
      pool.giveBack(connection, false);
      if (statementError) return void chunks.destroy(statementError);
      started();
      chunks.push(encoder.end());
      chunks.push(null);
    });
  return { chunks, started: start };
}
