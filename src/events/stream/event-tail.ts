import type { Logger } from '../../log/logger.js';
import { causeOf } from '../../errors/storage-error.js';
import type { EventLog, StoredEvent } from '../event-log.js';
import { EventWindow, type EventText } from './event-window.js';
import { sse } from './sse.js';

/** What the tail reads: pages of events after an id, and the outbox's marks. */
export type TailSource = Pick<EventLog, 'after' | 'marks'>;

export interface TailLimits {
  /** How often new events are looked for while a stream listens. */
  pollMs: number;
  /** Events read per query. */
  pageSize: number;
  /** The window of recent events kept in memory: at most this many, and this many characters. */
  windowEvents: number;
  windowChars: number;
  /** New events are handed to the streams in runs of at most this many characters. */
  pieceChars: number;
  /** How often the pruned mark is read again while following. */
  marksMs: number;
}

/** A stream that follows the tail: told each run of new events as it is read. */
export interface TailListener {
  appended(run: EventText): void;
}

/** The longest pause between looks while the outbox cannot be read. */
const MAX_BACKOFF_MS = 2000;

/**
 * The one reader of new events in this process, whatever the number of open streams: while any
 * stream listens it reads the events after the last one it has, every `pollMs` (and at once when
 * this process numbered some), keeps the most recent in a window every stream is served from, and
 * hands each run of new events to every listener as one shared text. A failed read ends nothing:
 * it is tried again, less often, and the listeners get what they missed once it succeeds.
 */
export class EventTail {
  readonly window: EventWindow;
  private readonly listeners = new Set<TailListener>();
  private following = false;
  private starting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private readAgain = false;
  private failures = 0;
  private marksReadAt = -Infinity;
  private pruned = 0;

  constructor(
    private readonly source: TailSource,
    private readonly limits: Readonly<TailLimits>,
    private readonly logger: Logger,
  ) {
    this.window = new EventWindow(limits.windowEvents, limits.windowChars);
  }

  /** The last id read. */
  get head(): number {
    return this.window.lastId;
  }

  /** The greatest id pruned, as last read: a reader resuming before it has missed events. */
  get prunedThrough(): number {
    return this.pruned;
  }

  /**
   * Resolves once the head and the pruned mark are current: at once while the tail follows the
   * outbox, else after one read of its marks (shared by every stream opening meanwhile).
   */
  current(): Promise<void> {
    if (this.following) return Promise.resolve();
    this.starting ??= this.source
      .marks()
      .then((marks) => {
        // A window left from an earlier spell of following is kept only if nothing came meanwhile.
        if (marks.lastId !== this.window.lastId) this.window.reset(marks.lastId);
        this.pruned = marks.prunedThrough;
        this.marksReadAt = performance.now();
      })
      .finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** The first listener starts the tail following the outbox. */
  add(listener: TailListener): void {
    this.listeners.add(listener);
    if (!this.following) {
      this.following = true;
      this.schedule(0);
    }
  }

  /** The last listener gone, the tail stops looking (its window stays, for the next follower). */
  remove(listener: TailListener): void {
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.stop();
  }

  /** This process numbered events through `lastId`: read them now rather than at the next look. */
  numbered(lastId: number): void {
    if (this.following && lastId > this.head) this.readNow();
  }

  stop(): void {
    this.following = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    if (!this.following) return;
    this.timer = setTimeout(() => this.readNow(), delayMs);
    this.timer.unref();
  }

  private readNow(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    this.readAgain = false;
    void this.read().finally(() => {
      this.reading = false;
      if (this.readAgain) this.readNow();
      else this.schedule(this.failures === 0 ? this.limits.pollMs : Math.min(MAX_BACKOFF_MS, this.limits.pollMs * 2 ** this.failures));
    });
  }

  /** Reads every event after the head, a page at a time, and hands each run to the listeners. */
  private async read(): Promise<void> {
    try {
      if (performance.now() - this.marksReadAt >= this.limits.marksMs) {
        this.pruned = (await this.source.marks()).prunedThrough;
        this.marksReadAt = performance.now();
      }
      for (;;) {
        const page = await this.source.after(this.head, this.limits.pageSize);
        if (page.length === 0 || !this.following) break;
        // A hole (pruned, or ids rewound by a restore): the window starts again after it; readers
        // behind it read the outbox themselves, and are told of what was pruned there.
        if (page[0]!.id !== this.head + 1) this.window.reset(page[0]!.id - 1);
        this.hand(page);
        if (page.length < this.limits.pageSize) break;
      }
      if (this.failures > 0) this.logger.info('reading new events recovered; open streams go on', { failedLooks: this.failures });
      this.failures = 0;
    } catch (error) {
      if (this.failures === 0) this.logger.warn('reading new events failed; open streams wait for it', { reason: reasonOf(error) });
      this.failures++;
    }
  }

  /** Adds the page to the window and hands it to every listener in runs of at most pieceChars. */
  private hand(page: readonly StoredEvent[]): void {
    let run: EventText | undefined;
    for (const event of page) {
      const text = sse.event(event);
      this.window.push(text, event.type);
      if (run && run.text.length + text.length <= this.limits.pieceChars) {
        run.text += text;
        run.through = event.id;
      } else {
        if (run) this.tell(run);
        run = { after: event.id - 1, through: event.id, text };
      }
    }
    if (run) this.tell(run);
  }

  private tell(run: EventText): void {
    // A copy: a listener may end, and leave the set, while it is told.
    for (const listener of [...this.listeners]) listener.appended(run);
  }
}

function reasonOf(error: unknown): string {
  const cause = causeOf(error);
  return cause instanceof Error ? cause.message : String(cause);
}
