import type { PoolConnection } from 'mysql2';
import { ChunkFlow, type RowChunks } from './chunk-flow.js';
import type { ConnectionSource } from './connection-source.js';
import { DatabaseTimeoutError, type Deadline } from './deadline.js';
import { statementSpan } from '../tracing/statement-spans.js';

/**
 * Turns a query's rows into the bytes of a stream: `add` returns a chunk once one is full, `end` the
 * last bytes; `reuse`, when given, takes back a chunk after it (the first excepted) once it was sent.
 */
export interface RowEncoder<Row> {
  add(row: Row): Buffer | undefined;
  end(): Buffer;
  reuse?(chunk: Buffer): void;
}

/** A streamed query's first chunk, and the chunks after it unless the first was the whole result. */
export interface OpenedRows {
  first: Buffer;
  rest: RowChunks | undefined;
}

/** A streamed query as it starts: its first row (or its end), then its first chunk. */
export interface EncodedRows {
  /** Resolves at the first row, or the end of an empty result; rejects if the query fails first. */
  started: Promise<void>;
  /** Resolves with the first chunk once it is full or the result ended; rejects if the query fails first. */
  opened: Promise<OpenedRows>;
  /** Stops the query before it opened; its connection is destroyed. */
  abort(reason: Error): void;
}

/**
 * A query's rows on `connection`, undecoded (each column the bytes the server sent, text
 * protocol, or null), encoded into chunks as they arrive. Rows go into the encoder as mysql2 emits
 * them, not through a stream write each (which took a 1000-row list two thirds more CPU), and a
 * result that ends within its first chunk never becomes a stream at all. Chunks after the first
 * pass through a ChunkFlow: one in the reader's hands, one waiting at most, the connection paused
 * meanwhile, and each sent chunk handed back to the encoder to be filled again. The connection goes
 * back to the pool when the statement is over (a statement error leaves it usable) and is
 * destroyed if the rows are cut short first, since the query may still be sending. The database
 * may fall silent until the deadline before the first row and for `silenceMs` after it; a reader
 * holding chunks back is not silence.
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
  let failed = false;
  let received = 0;
  let receivedAtCheck = 0;
  let statementError: Error | undefined;
  let rest: ChunkFlow | undefined;
  let paused = false;
  let start!: () => void;
  let failStart!: (error: Error) => void;
  let open!: (rows: OpenedRows) => void;
  let failOpen!: (error: Error) => void;
  const started = new Promise<void>((resolve, reject) => {
    start = resolve;
    failStart = reject;
  });
  const opened = new Promise<OpenedRows>((resolve, reject) => {
    open = resolve;
    failOpen = reject;
  });
  // Whoever waits learns of a failure from the promise it awaits; the other one must not throw.
  started.catch(() => {});
  opened.catch(() => {});

  const leave = (broken: boolean): void => {
    over = true;
    clearTimeout(watchdog);
    connection.off('error', fail);
    pool.giveBack(connection, broken);
  };
  /** Before the rows opened, both promises learn of it; after, the stream does. */
  function fail(error: Error): void {
    if (rest) return void rest.destroy(error);
    if (failed) return;
    failed = true;
    if (!over) leave(true);
    failStart(error);
    failOpen(error);
  }
  const openStream = (first: Buffer): void => {
    rest = new ChunkFlow({
      resume() {
        if (!paused || over) return;
        paused = false;
        connection.resume();
      },
      reuse: (chunk) => encoder.reuse?.(chunk),
      stop() {
        if (!over) leave(true);
      },
    });
    open({ first, rest });
  };
  // One timer per silence limit, not per row.
  const check = (): void => {
    if (received === receivedAtCheck && !rest?.holding) return fail(new DatabaseTimeoutError('The database stopped sending rows', true));
    receivedAtCheck = received;
    watchdog = setTimeout(check, silenceMs);
  };
  let watchdog = setTimeout(check, deadline.remainingMs());
  // A lost connection is reported on the connection, not on a query that has no callback.
  connection.on('error', fail);

  // A statement of a sampled request: its span ends with the last row (or the failure).
  const traced = deadline.trace && statementSpan(deadline.trace, statement, connection.config);
  connection
    .query({ sql: statement, values, typeCast: false })
    .on('result', (row) => {
      if (over || failed) return;
      if (received++ === 0) start();
      let full: Buffer | undefined;
      try {
        full = encoder.add(row as Row);
      } catch (error) {
        return fail(error as Error);
      }
      if (!full) return;
      if (!rest) openStream(full);
      else if (!rest.push(full)) {
        paused = true;
        connection.pause();
      }
    })
    // A statement error leaves the connection usable: the 'end' that follows releases it.
    .on('error', (error: Error) => void (statementError = error))
    .on('end', () => {
      traced?.(statementError);
      if (over) return;
      leave(false);
      if (statementError) return fail(statementError);
      if (failed) return;
      start();
      const last = encoder.end();
      if (!rest) return open({ first: last, rest: undefined });
      rest.push(last);
      rest.end();
    });
  return { started, opened, abort: fail };
}
