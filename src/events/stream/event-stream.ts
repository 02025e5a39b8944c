import type { ServerResponse } from 'node:http';
import type { EventLog, StoredEvent } from '../event-log.js';
import type { LastIdListener } from './last-id-watcher.js';
import { sse } from './sse.js';

/** What a stream reads: pages of events after an id, and how far they have been pruned. */
export type EventPages = Pick<EventLog, 'after' | 'prunedThrough'>;

export interface StreamLimits {
  /** Events read per query. */
  pageSize: number;
  /** A comment this often keeps proxies from closing a quiet stream. */
  keepAliveMs: number;
  /** A reader whose response holds more unsent bytes than this after a write is closed. */
  maxBufferedBytes: number;
  /** A reader that has not taken what was written within this time is closed. */
  drainTimeoutMs: number;
  /** How often the last id is looked at while streams are open. */
  pollMs: number;
}

/** Why a stream ended: its reader left, or it was ended here. */
export type StreamEnd = 'reader left' | 'reader too slow' | 'database error' | 'pruned' | 'shutdown';

/**
 * One open stream: sends the events after its cursor, a page at a time, whenever the last id is
 * beyond it, at its reader's pace (each page waits for the one before to drain). Memory is one page
 * per stream; events not sent yet wait in the outbox, however far behind the reader is.
 */
export class EventStream implements LastIdListener {
  private target: number;
  private pumping = false;
  private stopping: StreamEnd | undefined;
  private failure: unknown;
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly log: EventPages,
    private cursor: number,
    lastId: number,
    private readonly limits: StreamLimits,
    /** Told once, when the response has closed. */
    private readonly ended: (stream: EventStream, why: StreamEnd, error: unknown) => void,
  ) {
    this.target = lastId;
  }

  /** Writes the opening (the head must be written already) and the events already after the cursor. */
  start(): void {
    this.res.once('close', () => {
      clearInterval(this.keepAlive);
      this.ended(this, this.stopping ?? 'reader left', this.failure);
    });
    this.keepAlive = setInterval(() => {
      if (this.open && !this.res.writableNeedDrain) this.res.write(sse.keepAlive);
    }, this.limits.keepAliveMs);
    this.keepAlive.unref();
    this.res.write(sse.opening);
    void this.pump();
  }

  seen(lastId: number): void {
    if (lastId <= this.target) return;
    this.target = lastId;
    void this.pump();
  }

  failed(error: unknown): void {
    this.stop('database error', error);
  }

  /**
   * Ends the stream: at once (its buffer dropped) for a reader too slow or one that has not taken
   * everything yet, so that nothing waits on it; otherwise after what was written.
   */
  stop(why: StreamEnd, error?: unknown): void {
    if (this.stopping !== undefined || this.res.destroyed) return;
    this.stopping = why;
    this.failure = error;
    if (why === 'reader too slow' || this.res.writableLength > 0) this.res.destroy();
    else this.res.end();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.open && this.cursor < this.target) {
        const page = await this.log.after(this.cursor, this.limits.pageSize);
        // A page that does not go on from the cursor one by one may miss pruned events: the
        // reader is told (by its next request's 410) rather than shown a gap.
        if (!followsOn(page, this.cursor) && (await this.log.prunedThrough()) > this.cursor) return this.stop('pruned');
        if (page.length === 0 || !this.open) return;
        this.cursor = page[page.length - 1]!.id;
        if (!(await this.send(sse.events(page)))) return;
      }
    } catch (error) {
      this.stop('database error', error);
    } finally {
      this.pumping = false;
    }
  }

  /** Resolves true once the reader has room for more; false when the stream ended meanwhile. */
  private async send(text: string): Promise<boolean> {
    const room = this.res.write(text);
    if (this.res.writableLength > this.limits.maxBufferedBytes) {
      this.stop('reader too slow');
      return false;
    }
    if (room) return true;
    if (await this.drained()) return true;
    this.stop('reader too slow');
    return false;
  }

  /** Neither ended here nor closed by its reader. */
  private get open(): boolean {
    return this.stopping === undefined && !this.res.destroyed;
  }

  private drained(): Promise<boolean> {
    if (this.res.destroyed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (drained: boolean): void => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(drained);
      };
      const onDrain = (): void => done(true);
      const onClose = (): void => done(false);
      const timer = setTimeout(onClose, this.limits.drainTimeoutMs);
      this.res.on('drain', onDrain);
      this.res.on('close', onClose);
    });
  }
}

/** True when the page's ids are exactly the ones after `cursor`, none left out. */
function followsOn(page: readonly StoredEvent[], cursor: number): boolean {
  if (page.length === 0) return false;
  return page[0]!.id === cursor + 1 && page[page.length - 1]!.id === cursor + page.length;
}
