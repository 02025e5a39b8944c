/**
 * Where a streamed query's chunks go: `write` takes one chunk and calls `sent` once its bytes are no
 * longer needed (handed to the network), or with an error when they cannot be sent.
 */
export type ChunkSink = (chunk: Buffer, sent: (error?: Error | null) => void) => void;

/** A streamed query's chunks after the first, sent at the reader's pace. */
export interface RowChunks {
  /** Sends every chunk to `sink`, in order; resolves once the last was sent. Called once. */
  sendTo(sink: ChunkSink): Promise<void>;
  /** Settles when the chunks are all sent (resolves) or they failed or were stopped (rejects). */
  readonly finished: Promise<void>;
  /** Stops the query; `finished` and `sendTo` reject with `reason`. */
  destroy(reason?: Error): void;
}

/** What a ChunkFlow asks of the rows behind it. */
export interface ChunkSource {
  /** There is room again for a chunk: the rows may flow (after `push` answered false). */
  resume(): void;
  /** A chunk has been sent: its memory may hold the rows to come. */
  reuse(chunk: Buffer): void;
  /** The chunks are no longer wanted (destroyed, or the sink failed). */
  stop(reason: Error): void;
}

const NOT_ALL_READ = 'The rows were not all read';

/**
 * The bound between a query and its reader: one chunk in the sink's hands at a time, and at most one
 * full chunk waiting behind it, whatever the reader's pace. `push` answers false when a chunk has to
 * wait, and the rows pause until `resume`; a chunk the sink has sent goes back to be filled again,
 * so a listing of any length keeps the same few chunks of memory, allocated once.
 */
export class ChunkFlow implements RowChunks {
  readonly finished: Promise<void>;
  private readonly waiting: Buffer[] = [];
  private sink: ChunkSink | undefined;
  private sending = false;
  private ended = false;
  private failure: Error | undefined;
  private settle!: () => void;
  private fail!: (error: Error) => void;

  constructor(private readonly source: ChunkSource) {
    this.finished = new Promise<void>((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
    // Whoever reads the chunks learns of a failure from sendTo; one that comes before must not be thrown.
    this.finished.catch(() => {});
  }

  /** A chunk waits for the reader: the rows are held back by the reader, not silent. */
  get holding(): boolean {
    return this.waiting.length > 0;
  }

  /** Takes a full chunk; false when it has to wait, and the rows must pause until `resume`. */
  push(chunk: Buffer): boolean {
    this.waiting.push(chunk);
    this.flush();
    return this.waiting.length === 0;
  }

  /** The last chunk has been pushed. */
  end(): void {
    this.ended = true;
    this.flush();
  }

  sendTo(sink: ChunkSink): Promise<void> {
    if (this.sink) throw new Error('The chunks are already being sent');
    this.sink = sink;
    this.flush();
    return this.finished;
  }

  destroy(reason = new Error(NOT_ALL_READ)): void {
    if (this.failure || (this.ended && !this.sending && this.waiting.length === 0)) return;
    this.failure = reason;
    this.waiting.length = 0;
    this.source.stop(reason);
    this.fail(reason);
  }

  private flush(): void {
    if (!this.sink || this.sending || this.failure) return;
    const chunk = this.waiting.shift();
    if (!chunk) {
      if (this.ended) this.settle();
      return;
    }
    this.sending = true;
    let returned = false;
    const sent = (error?: Error | null): void => {
      // A sink that answers at once must not run the rows inside its own call.
      if (!returned) return void queueMicrotask(() => sent(error));
      if (error) return this.destroy(error);
      this.sending = false;
      this.source.reuse(chunk);
      this.flush();
      if (!this.failure && !this.ended && this.waiting.length === 0) this.source.resume();
    };
    this.sink(chunk, sent);
    returned = true;
  }
}
