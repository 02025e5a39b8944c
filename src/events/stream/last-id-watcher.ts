/** What a watcher tells each open stream after every look. */
export interface LastIdListener {
  seen(lastId: number): void;
  failed(error: unknown): void;
}

/**
 * The one look at the outbox's last id that every open stream of this process shares: one query
 * every `intervalMs`, made only while at least one stream listens. Every listener is told each
 * result, changed or not (a stream that opened between two looks compares it with its own cursor).
 */
export class LastIdWatcher {
  private readonly listeners = new Set<LastIdListener>();
  private timer: NodeJS.Timeout | undefined;
  private looking = false;

  constructor(
    private readonly lastId: () => Promise<number>,
    private readonly intervalMs: number,
  ) {}

  add(listener: LastIdListener): void {
    this.listeners.add(listener);
    if (this.timer === undefined && !this.looking) this.schedule();
  }

  remove(listener: LastIdListener): void {
    this.listeners.delete(listener);
    if (this.listeners.size === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  get watching(): boolean {
    return this.timer !== undefined || this.looking;
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.look(), this.intervalMs);
    this.timer.unref();
  }

  private async look(): Promise<void> {
    this.timer = undefined;
    this.looking = true;
    const outcome = await this.lastId().then(
      (last) => ({ last }),
      (error: unknown) => ({ error }),
    );
    this.looking = false;
    // A copy: a listener told of a failure leaves the set while it is walked.
    for (const listener of [...this.listeners]) {
      if ('last' in outcome) listener.seen(outcome.last);
      else listener.failed(outcome.error);
    }
    if (this.listeners.size > 0 && this.timer === undefined) this.schedule();
  }
}
