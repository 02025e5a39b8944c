import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
import { messages } from '../../errors/messages.js';
import { causeOf } from '../../errors/storage-error.js';
import { requestIdOf } from '../../http/request-id.js';
import type { Logger } from '../../log/logger.js';
import type { EventLog } from '../event-log.js';
import { EventStream, type StreamEnd, type StreamLimits } from './event-stream.js';
import { LastIdWatcher } from './last-id-watcher.js';
import { writeStreamHead } from './sse.js';

export const defaultStreamLimits: Readonly<StreamLimits> = {
  pageSize: 500,
  keepAliveMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
  drainTimeoutMs: 60_000,
  pollMs: 250,
};

const gone = new HttpError(410, messages.eventsGone);
const shuttingDown = new HttpError(503, messages.shuttingDown, { 'Retry-After': '1' });

/**
 * This process's open streams and the one watcher of the last id they share. Each stream reads
 * the outbox itself, so it sees the events of every worker and instance.
 */
export class EventStreams {
  private readonly open = new Set<EventStream>();
  private readonly watcher: LastIdWatcher;
  private closed = false;

  constructor(
    private readonly log: EventLog,
    private readonly logger: Logger,
    private readonly limits: Readonly<StreamLimits> = defaultStreamLimits,
  ) {
    this.watcher = new LastIdWatcher(() => log.lastId(), limits.pollMs);
  }

  /**
   * Answers a stream request whose caller is let in: 410 when events after `after` were pruned;
   * otherwise the stream, from `after` or (without it) from the last event recorded so far. A
   * storage failure before the head rejects, and is answered like any other.
   */
  async serve(req: IncomingMessage, res: ServerResponse, after: number | undefined): Promise<void> {
    if (this.closed) throw shuttingDown;
    const [lastId, prunedThrough] = await Promise.all([this.log.lastId(), this.log.prunedThrough()]);
    const from = after ?? lastId;
    if (from < prunedThrough) throw gone;
    if (res.destroyed) return;
    if (this.closed) throw shuttingDown;
    writeStreamHead(res);
    if (req.method === 'HEAD') return void res.end();
    const stream = new EventStream(res, this.log, from, lastId, this.limits, (ended, why, error) => this.ended(ended, res, why, error));
    this.open.add(stream);
    this.watcher.add(stream);
    stream.start();
  }

  /** Ends every open stream now, and refuses new ones (the service is closing). */
  close(): void {
    this.closed = true;
    for (const stream of this.open) stream.stop('shutdown');
  }

  private ended(stream: EventStream, res: ServerResponse, why: StreamEnd, error: unknown): void {
    this.open.delete(stream);
    this.watcher.remove(stream);
    const fields = { requestId: requestIdOf(res) };
    if (why === 'reader too slow') this.logger.warn('event stream closed: its reader fell behind', fields);
    if (why === 'database error') this.logger.warn('event stream ended by a database error; its reader resumes', { ...fields, reason: reasonOf(error) });
  }
}

function reasonOf(error: unknown): string {
  const cause = causeOf(error);
  return cause instanceof Error ? cause.message : String(cause);
}
