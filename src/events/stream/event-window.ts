import type { EventType } from '../event-log.js';
import { sse } from './sse.js';
import type { TypeFilter } from './type-filter.js';

/** A run of events as the stream sends it, after one id and through another. */
export interface EventText {
  /** The id the run follows on from (a reader at this cursor may take it). */
  after: number;
  /** The last id in it. */
  through: number;
  text: string;
}

/**
 * The most recent events this process has read, each as its stream text, in id order without a
 * hole: a reader whose cursor lies within it is served from memory. Bounded by a number of events
 * and of characters; the oldest go first.
 */
export class EventWindow {
  private texts: string[] = [];
  /** The type of each event in `texts`, at the same index. */
  private types: EventType[] = [];
  /** Index in `texts` of the oldest event still held (older entries are dropped in bulk). */
  private start = 0;
  /** Id of texts[start]. */
  private first = 1;
  private chars = 0;
  /** Moves on with every change, so that a filtered run built before one is not given after it. */
  private version = 0;
  /** The last filtered run built for each filter: the next stream of those types at that cursor gets it as it is. */
  private readonly filtered = new Map<string, { version: number; cursor: number; maxChars: number; run: EventText | undefined }>();

  constructor(
    private readonly maxEvents: number,
    private readonly maxChars: number,
  ) {}

  /** The last id held, or the id the window was last reset to. */
  get lastId(): number {
    return this.first + this.size - 1;
  }

  get size(): number {
    return this.texts.length - this.start;
  }

  /** Whether every event after `cursor` through lastId is held (nothing after it counts as held). */
  covers(cursor: number): boolean {
    return cursor >= this.first - 1;
  }

  /** Empties the window, which then follows on from `lastId`. */
  reset(lastId: number): void {
    this.version++;
    this.texts = [];
    this.types = [];
    this.start = 0;
    this.first = lastId + 1;
    this.chars = 0;
  }

  /** Adds the text of the event after lastId, and its type. */
  push(text: string, type: EventType): void {
    this.version++;
    this.texts.push(text);
    this.types.push(type);
    this.chars += text.length;
    while (this.size > 1 && (this.size > this.maxEvents || this.chars > this.maxChars)) {
      this.chars -= this.texts[this.start]!.length;
      this.start++;
      this.first++;
    }
    // Dropped entries are removed in bulk, so that each push stays cheap.
    if (this.start > 1024 && this.start * 2 > this.texts.length) {
      this.texts = this.texts.slice(this.start);
      this.types = this.types.slice(this.start);
      this.start = 0;
    }
  }

  /**
   * The events after `cursor` (which the window covers), at least one and then as many as fit in
   * `maxChars`; undefined when none is after it.
   */
  after(cursor: number, maxChars: number): EventText | undefined {
    let index = this.start + Math.max(0, cursor - this.first + 1);
    if (index >= this.texts.length) return undefined;
    const from = index;
    let chars = this.texts[index]!.length;
    index++;
    while (index < this.texts.length && chars + this.texts[index]!.length <= maxChars) chars += this.texts[index++]!.length;
    const through = this.first + (index - 1 - this.start);
    return { after: through - (index - from), through, text: this.texts.slice(from, index).join('') };
  }

  /**
   * The events after `cursor` (which the window covers) as a stream of some types gets them: those
   * of its types, as many as fit in `maxChars` (at least one), looking on through the window past
   * events of other types; then, when the last event looked at is of another type, an `id:` alone,
   * so the reader's resume point moves past what it was not sent. Undefined when none is after the
   * cursor. Streams of the same types at the same cursor share one run, built for the first.
   */
  afterOf(cursor: number, maxChars: number, filter: TypeFilter): EventText | undefined {
    const last = this.filtered.get(filter.key);
    if (last && last.version === this.version && last.cursor === cursor && last.maxChars === maxChars) return last.run;
    const run = this.filteredAfter(cursor, maxChars, filter);
    this.filtered.set(filter.key, { version: this.version, cursor, maxChars, run });
    return run;
  }

  private filteredAfter(cursor: number, maxChars: number, filter: TypeFilter): EventText | undefined {
    let index = this.start + Math.max(0, cursor - this.first + 1);
    if (index >= this.texts.length) return undefined;
    let text = '';
    let sentThrough = cursor;
    for (; index < this.texts.length; index++) {
      if (!filter.has(this.types[index]!)) continue;
      // Full: the run ends with the last event put in it; the next starts after that one.
      if (text !== '' && text.length + this.texts[index]!.length > maxChars) return { after: cursor, through: sentThrough, text };
      text += this.texts[index]!;
      sentThrough = this.first + (index - this.start);
    }
    const through = this.lastId;
    return { after: cursor, through, text: sentThrough === through ? text : text + sse.id(through) };
  }
}
