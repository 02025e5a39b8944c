import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
import { messages, streamMessages } from '../../errors/messages.js';
import { requestIdOf } from '../../http/request-id.js';
import type { Logger } from '../../log/logger.js';
import type { EventLog } from '../event-log.js';
import { CatchUpReads } from './catch-up-reads.js';
import { EventStream, type EventPages, type StreamEnd, type StreamLimits, type StreamSource } from './event-stream.js';
import { EventTail, type TailSource } from './event-tail.js';
import { unobservedStreams, type StreamObserver } from './metrics.js';
import { writeStreamHead } from './sse.js';
import type { TypeFilter } from './type-filter.js';

export const defaultStreamLimits: Readonly<StreamLimits> = {
  pageSize: 500,
  keepAliveMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
  drainTimeoutMs: 60_000,
  pollMs: 250,
  windowEvents: 10_000,
  windowChars: 8 * 1024 * 1024,
  pieceChars: 16 * 1024,
  catchUpReads: 2,
};

/** How often the pruned mark is read again while streams are open: pruning runs once a minute. */
const MARKS_MS = 5000;

const shuttingDown = new HttpError(503, messages.shuttingDown, { 'Retry-After': '1' });

/**
 * This process's open streams, all fed by one reader of the outbox (EventTail): a new event costs
 * one query per process however many streams are open, and a stream that opens or resumes within
 * the window of recent events costs none. Only streams resuming from before the window read the
 * outbox themselves, a bounded few at a time (CatchUpReads).
 */
export class EventStreams {
  private readonly open = new Set<EventStream>();
  private readonly tail: EventTail;
  private readonly source: StreamSource;
  private keepAlive: NodeJS.Timeout | undefined;
  private closed = false;

  private readonly catchUpLog: EventPages;

  constructor(
    log: EventLog,
    private readonly logger: Logger,
    private readonly limits: Readonly<StreamLimits> = defaultStreamLimits,
    observer: StreamObserver = unobservedStreams,
  ) {
    const tailSource: TailSource = {
      after: (id, limit) => (observer.tailRead(), log.after(id, limit)),
      marks: () => (observer.tailRead(), log.marks()),
    };
    this.catchUpLog = {
      after: (id, limit) => (observer.catchUpRead(), log.after(id, limit)),
      prunedThrough: () => (observer.catchUpRead(), log.prunedThrough()),
    };
    this.tail = new EventTail(tailSource, { ...limits, marksMs: MARKS_MS }, logger);
    this.source = {
      head: () => this.tail.head,
      window: this.tail.window,
      log: this.catchUpLog,
      reads: new CatchUpReads(limits.catchUpReads),
      together: () => this.open.size,
    };
  }

  /** Streams open now. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Answers a stream request whose caller is let in: 410 when events after `after` were pruned,
   * its message naming the oldest kept; otherwise the stream, from `after` or (without it) from the
   * last event read so far, of every type or of `types` only. `after` 0 is the oldest event kept,
   * never a 410. A storage failure before the head (the first stream of an idle process reads the
   * outbox's marks) rejects, and is answered like any other.
   */
  async serve(req: IncomingMessage, res: ServerResponse, after: number | undefined, types?: TypeFilter): Promise<void> {
    if (this.closed) throw shuttingDown;
    await this.tail.current();
    let from = this.resumable(after ?? this.tail.head, after === 0, this.tail.prunedThrough);
    // Behind the window, the pruned mark read now decides: it may have moved since the tail read it.
    if (!this.tail.window.covers(from)) from = this.resumable(from, after === 0, await this.source.reads.run(() => this.catchUpLog.prunedThrough()));
    if (res.destroyed) return;
    if (this.closed) throw shuttingDown;
    writeStreamHead(res);
    if (req.method === 'HEAD') return void res.end();
    const stream = new EventStream(res, this.source, from, types, this.limits, (ended, why) => this.ended(ended, res, why));
    this.open.add(stream);
    this.tail.add(stream);
    this.keepAliveWhileOpen();
    stream.start();
  }

  /** Where a stream resuming after `from` starts, given the events pruned: after them when it asked for the oldest kept, else 410 if it missed some. */
  private resumable(from: number, oldestKept: boolean, prunedThrough: number): number {
    if (from >= prunedThrough) return from;
    if (oldestKept) return prunedThrough;
    throw new HttpError(410, streamMessages.gone(prunedThrough, this.tail.head));
  }

  /** This process numbered events through `lastId`: the streams get them without waiting for the next look. */
  numbered(lastId: number): void {
    this.tail.numbered(lastId);
  }

  /** Ends every open stream now, each told when to come back, and refuses new ones (the service is closing). */
  close(): void {
    this.closed = true;
    for (const stream of this.open) stream.stop('shutdown');
    this.tail.stop();
  }

  private keepAliveWhileOpen(): void {
    if (this.keepAlive) return;
    this.keepAlive = setInterval(() => {
      for (const stream of this.open) stream.keepAlive();
    }, this.limits.keepAliveMs);
    this.keepAlive.unref();
  }

  private ended(stream: EventStream, res: ServerResponse, why: StreamEnd): void {
    this.open.delete(stream);
    this.tail.remove(stream);
    if (this.open.size === 0) {
      clearInterval(this.keepAlive);
      this.keepAlive = undefined;
    }
    if (why === 'reader too slow') this.logger.warn('event stream closed: its reader fell behind', { requestId: requestIdOf(res) });
  }
}
