import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventLog, StoredEvent } from '../event-log.js';
import type { CatchUpReads } from './catch-up-reads.js';
import type { EventText, EventWindow } from './event-window.js';
import type { TailListener } from './event-tail.js';
import { reconnectMs, sse } from './sse.js';
import type { TypeFilter } from './type-filter.js';

/** What a stream behind the window reads itself: pages of events after an id, and how far they were pruned. */
export type EventPages = Pick<EventLog, 'after' | 'prunedThrough'>;

export interface StreamLimits {
  /** Events read per query. */
  pageSize: number;
  /** A comment this often keeps proxies from closing a quiet stream. */
  keepAliveMs: number;
  /** A reader whose response holds more unsent bytes than this after a write is closed (a write is at most pieceChars). */
  maxBufferedBytes: number;
  /** A reader that has not taken what was written within this time is closed. */
  drainTimeoutMs: number;
  /** How often new events are looked for while streams are open. */
  pollMs: number;
  /** Recent events kept in memory for every stream of the process: at most this many, and this many characters. */
  windowEvents: number;
  windowChars: number;
  /** The most characters written to one stream at a time. */
  pieceChars: number;
  /** Streams behind the window reading the outbox at once, per process. */
  catchUpReads: number;
}

/** Why a stream ended: its reader left, or it was ended here. */
export type StreamEnd = 'reader left' | 'reader too slow' | 'pruned' | 'shutdown';

/** What a stream is served from: the process's one reader of new events, and the outbox for what is older. */
export interface StreamSource {
  /** The last id read by this process. */
  head(): number;
  window: EventWindow;
  log: EventPages;
  reads: CatchUpReads;
  /** How many streams would come back together if this one ended now. */
  together(): number;
}

/**
 * One open stream. While its reader keeps up it is live: each run of new events the tail reads is
 * written to it as it comes, the same text for every stream. A stream behind (it resumed from an
 * older id, or its reader was slow and it stopped being written to) catches up first: from the
 * window while its cursor lies within it, else from the outbox a page at a time, its reads queued
 * with those of every other stream behind (CatchUpReads). It waits for its reader to take each
 * write (`drain`) before the next; a reader that takes nothing within the drain timeout, or has
 * more than the bound unsent, is closed alone. A failed read ends nothing: it is tried again.
 *
 * A stream of some types (`?types=`) is sent only events of those, and an `id:` alone after events
 * of other types (sse.id), so its reader's resume point is where the stream is, not its last event.
 * Its share of each run of new events is taken from the window, built once for every stream of the
 * same types.
 */
export class EventStream implements TailListener {
  /** Written to as new events come: it has everything through the head, and its reader keeps up. */
  private live = false;
  private catchingUp = false;
  private stopping: StreamEnd | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly source: StreamSource,
    private cursor: number,
    /** The types it is sent; undefined: every type. */
    private readonly types: TypeFilter | undefined,
    private readonly limits: Readonly<StreamLimits>,
    /** Told once, when the response has closed. */
    private readonly ended: (stream: EventStream, why: StreamEnd) => void,
  ) {}

  /** Writes the opening (the head must be written already) and whatever is after the cursor. */
  start(): void {
    this.res.once('close', () => {
      this.live = false;
      this.ended(this, this.stopping ?? 'reader left');
    });
    this.res.write(sse.retry(reconnectMs(1)));
    void this.catchUp();
  }

  appended(run: EventText): void {
    if (!this.live || run.through <= this.cursor) return;
    if (run.after !== this.cursor || this.types !== undefined) return void this.catchUp();
    this.cursor = run.through;
    if (!this.write(run.text)) return;
    if (this.res.writableNeedDrain) void this.catchUp();
  }

  keepAlive(): void {
    if (this.live && !this.res.writableNeedDrain) this.write(sse.keepAlive);
  }

  /**
   * Ends the stream: at once for a reader too slow (its buffer dropped); otherwise after what was
   * written, with a `retry:` spread over the streams that end together, so they do not all come back at once.
   */
  stop(why: StreamEnd): void {
    if (this.stopping !== undefined || this.res.destroyed) return;
    this.stopping = why;
    this.live = false;
    if (why === 'reader too slow' || this.res.writableNeedDrain) return void this.res.destroy();
    this.res.end(sse.retry(reconnectMs(this.source.together())));
  }

  /** Neither ended here nor closed by its reader. */
  private get open(): boolean {
    return this.stopping === undefined && !this.res.destroyed;
  }

  /** Writes until the stream has everything through the head, then goes live. */
  private async catchUp(): Promise<void> {
    if (this.catchingUp) return;
    this.catchingUp = true;
    this.live = false;
    try {
      while (this.open) {
        if (this.res.writableNeedDrain && !(await this.drained())) return this.stop('reader too slow');
        if (!this.open) return;
        if (this.cursor >= this.source.head()) {
          this.live = true;
          return;
        }
        const run = this.source.window.covers(this.cursor) ? this.fromWindow() : undefined;
        if (run) {
          this.cursor = run.through;
          this.write(run.text);
        } else {
          await this.readPage();
        }
      }
    } finally {
      this.catchingUp = false;
    }
  }

  /** The events after the cursor the window holds, as many as a write takes, of the stream's types. */
  private fromWindow(): EventText | undefined {
    const { window } = this.source;
    return this.types === undefined ? window.after(this.cursor, this.limits.pieceChars) : window.afterOf(this.cursor, this.limits.pieceChars, this.types);
  }

  /** One page after the cursor from the outbox, for a stream behind the window; a failure waits and lets the loop try again. */
  private async readPage(): Promise<void> {
    let page: StoredEvent[];
    try {
      page = await this.source.reads.run(() => this.source.log.after(this.cursor, this.limits.pageSize));
      // A page that does not go on from the cursor one by one may miss pruned events: the
      // reader is told (by its next request's 410) rather than shown a gap.
      if (!followsOn(page, this.cursor) && (await this.source.reads.run(() => this.source.log.prunedThrough())) > this.cursor) return this.stop('pruned');
    } catch {
      await sleep(this.limits.pollMs * 4);
      return;
    }
    // Nothing after the cursor yet below the window: the window moved on meanwhile; look again.
    if (page.length === 0) return void (await sleep(this.limits.pollMs));
    for (let from = 0; from < page.length && this.open; ) {
      const { text, to } = pieceOf(page, from, this.limits.pieceChars, this.types);
      this.cursor = page[to - 1]!.id;
      if (!this.write(text)) return;
      if (this.res.writableNeedDrain && !(await this.drained())) return this.stop('reader too slow');
      from = to;
    }
  }

  /** False when the write took the reader past the bound: it is closed. */
  private write(text: string): boolean {
    this.res.write(text);
    if (this.res.writableLength <= this.limits.maxBufferedBytes) return true;
    this.stop('reader too slow');
    return false;
  }

  /** Resolves true once the reader has taken what was written; false when it took nothing for the drain timeout, or left. */
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

/**
 * The next write of a page from `from` on: its events of the stream's types (all without a filter)
 * until at least one is in and the text reaches `pieceChars`, else to the page's end; then an `id:`
 * alone when the last event looked at was of another type. `to` is the index after that event.
 */
function pieceOf(page: readonly StoredEvent[], from: number, pieceChars: number, types: TypeFilter | undefined): { text: string; to: number } {
  let text = '';
  let to = from;
  while (to < page.length && (text === '' || text.length < pieceChars)) {
    const event = page[to++]!;
    if (types === undefined || types.has(event.type)) text += sse.event(event);
  }
  const last = page[to - 1]!;
  return { text: types === undefined || types.has(last.type) ? text : text + sse.id(last.id), to };
}
