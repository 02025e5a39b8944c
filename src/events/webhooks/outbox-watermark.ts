import type { EventLog } from '../event-log.js';

/** How often the last event id is read while some endpoint waits for events. */
const POLL_MS = 200;

/**
 * The last event id this process knows of, for every endpoint worker it runs: one read of the
 * sequence every POLL_MS for them all (and news from this process's own numbering at once), so an
 * endpoint reads the outbox only when there is something new in it. With a hundred endpoints a
 * process costs one statement per poll, not a hundred.
 */
export class OutboxWatermark {
  private last = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private stopped = false;

  constructor(private readonly log: EventLog) {}

  /** True when events after `id` may exist (or the watermark is not read yet). */
  hasAfter(id: number): boolean {
    this.start();
    return this.last === 0 || this.last > id;
  }

  /** This process numbered events through `lastId`. */
  readonly numbered = (lastId: number): void => {
    if (lastId > this.last) this.last = lastId;
  };

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private start(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = setInterval(() => void this.read(), POLL_MS);
    this.timer.unref();
    void this.read();
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      this.numbered(await this.log.lastId());
    } catch {
      // The database away: endpoints read the outbox as if something were new, and fail there.
      this.last = 0;
    } finally {
      this.reading = false;
    }
  }
}
