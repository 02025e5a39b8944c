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
  /** Index in `texts` of the oldest event still held (older entries are dropped in bulk). */
  private start = 0;
  /** Id of texts[start]. */
  private first = 1;
  private chars = 0;

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
    this.texts = [];
    this.start = 0;
    this.first = lastId + 1;
    this.chars = 0;
  }

  /** Adds the text of the event after lastId. */
  push(text: string): void {
    this.texts.push(text);
    this.chars += text.length;
    while (this.size > 1 && (this.size > this.maxEvents || this.chars > this.maxChars)) {
      this.chars -= this.texts[this.start]!.length;
      this.start++;
      this.first++;
    }
    // Dropped entries are removed in bulk, so that each push stays cheap.
    if (this.start > 1024 && this.start * 2 > this.texts.length) {
      this.texts = this.texts.slice(this.start);
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
}
