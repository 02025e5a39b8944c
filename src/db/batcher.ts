import { StorageError } from '../errors/storage-error.js';
import type { SpanContext } from '../tracing/trace-context.js';

/** Too many operations of one kind are already waiting for a batch. */
export class QueueFullError extends Error {
  constructor() {
    super('Too many operations waiting for the database');
    this.name = 'QueueFullError';
  }
}

export interface Pending<I, R> {
  readonly item: I;
  /** When it was submitted (performance.now()): its time budget runs from here, waiting included. */
  readonly since: number;
  /** The span of the request that asked for it: the batch's statements belong to each such span. */
  readonly span: SpanContext | undefined;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** Runs one batch; it must settle every entry it is given. A rejection rejects those left unsettled. */
export type RunBatch<I, R> = (batch: ReadonlyArray<Pending<I, R>>) => Promise<void>;

/**
 * Gathers concurrent operations of one kind so they share a database round trip. Items submitted
 * while fewer than `maxInFlight` batches run go out together at the end of the current I/O phase;
 * while the limit is reached they wait, and the next batch takes all of them (up to `maxBatch`).
 * Under light load a batch is a single item, so nothing waits that need not.
 */
export class Batcher<I, R> {
  private waiting: Array<Pending<I, R>> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: RunBatch<I, R>,
    private readonly maxInFlight: number,
    private readonly maxBatch: number,
    /** Items that may wait for a batch; beyond it submit fails at once with QueueFullError. */
    private readonly maxWaiting: number,
  ) {}

  submit(item: I, span?: SpanContext): Promise<R> {
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new StorageError(new QueueFullError(), 'busy'));
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, since: performance.now(), span, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    while (this.waiting.length > 0 && this.inFlight < this.maxInFlight) {
      const batch = this.waiting.length <= this.maxBatch ? this.waiting : this.waiting.slice(0, this.maxBatch);
      this.waiting = batch === this.waiting ? [] : this.waiting.slice(this.maxBatch);
      this.inFlight++;
      this.run(batch)
        .catch((error: unknown) => {
          for (const pending of batch) pending.reject(error);
        })
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  };
}

/** The smallest power of two at least `count`: batch statements come in few shapes, so few are prepared. */
export function paddedSize(count: number): number {
  let size = 1;
  while (size < count) size *= 2;
  return size;
}

/** The items, the last one repeated up to the next power of two (harmless in IN lists and CASEs). */
export function padded<T>(items: readonly T[]): T[] {
  const size = paddedSize(items.length);
  const result = items.slice();
  while (result.length < size) result.push(items[items.length - 1]!);
  return result;
}
