import type { RunBatch } from '../../db/batcher.js';
import type { RowChunks } from '../../db/chunk-flow.js';
import type { StopSignal } from '../../db/stop-signal.js';
import { ConflictError } from '../../errors/conflict-error.js';
import { StorageError } from '../../errors/storage-error.js';
import type { OperationOutcome, StoreObserver, StoreOperation } from './store-observer.js';

/**
 * The operation's outcome goes to the observer (a success only when `complete` says it is over);
 * without an observer the promise is returned as it is.
 */
export function counted<T>(
  observer: StoreObserver | undefined,
  kind: StoreOperation,
  pending: Promise<T>,
  complete: (value: T) => boolean = () => true,
): Promise<T> {
  if (!observer) return pending;
  return pending.then(
    (value) => {
      if (complete(value)) observer.operation(kind, 'ok');
      return value;
    },
    (error: unknown) => {
      observer.operation(kind, outcomeOf(error));
      throw error;
    },
  );
}

/**
 * A streamed operation's outcome goes to the observer: a failure before its first chunk, or how
 * its rest ended (a success at once when the first chunk was all); nothing when it stopped
 * because `abandoned` (the client went away).
 */
export function countedStream<T extends { rest: RowChunks | undefined }>(
  observer: StoreObserver | undefined,
  kind: StoreOperation,
  opening: Promise<T>,
  abandoned: StopSignal,
): Promise<T> {
  if (!observer) return opening;
  const count = (error: unknown): void => {
    if (!abandoned.stopped) observer.operation(kind, error ? outcomeOf(error) : 'ok');
  };
  return opening.then(
    (opened) => {
      if (opened.rest) opened.rest.finished.then(() => count(undefined), count);
      else count(undefined);
      return opened;
    },
    (error: unknown) => {
      count(error);
      throw error;
    },
  );
}

/** A batch runner that first tells the observer the batch's size. */
export function sized<I, R>(observer: StoreObserver | undefined, kind: StoreOperation, run: RunBatch<I, R>): RunBatch<I, R> {
  if (!observer) return run;
  return (batch) => {
    observer.batch(kind, batch.length);
    return run(batch);
  };
}

/** A failure as the metrics count it: turned away because too much waits, a conflict, or anything else. */
function outcomeOf(error: unknown): OperationOutcome {
  if (error instanceof ConflictError) return 'conflict';
  return error instanceof StorageError && error.kind === 'busy' ? 'busy' : 'error';
}
