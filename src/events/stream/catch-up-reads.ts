/**
 * The reads of streams that resume from before the window, bounded: at most `concurrency` of them
 * query the outbox at once in this process, the others wait here, in order, rather than in the
 * connection pool's queue, so however many streams catch up they never take the API's connections.
 */
export class CatchUpReads {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly concurrency: number) {}

  async run<T>(read: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await read();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Reads waiting for their turn. */
  get queued(): number {
    return this.waiting.length;
  }
}
