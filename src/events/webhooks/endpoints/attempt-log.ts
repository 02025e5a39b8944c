import type { Database } from '../../../db/database.js';
import { endpointSql } from '../../../db/webhook-endpoint-statements.js';
import type { Logger } from '../../../log/logger.js';

/** One attempt as its log keeps it. */
export interface Attempt {
  endpoint: string;
  eventId: number;
  eventType: string;
  /** `YYYY-MM-DD HH:MM:SS.mmm`, UTC. */
  attemptedAt: string;
  succeeded: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

/** Attempts written per statement at most. */
const MAX_ROWS = 128;
/** Attempts waiting to be written at most: beyond, the oldest are dropped (and said once a minute) rather than memory growing. */
const MAX_WAITING = 20_000;

/**
 * The attempts of this process's deliveries, written off the delivery path: at once when no write
 * is under way, else gathered and written together when it ends, so a busy process writes one
 * statement per many attempts and an idle one shows each attempt within a round trip. A failed
 * write is logged and its rows dropped: the log tells what happened, the deliveries do not depend on it.
 */
export class AttemptLog {
  private waiting: Attempt[] = [];
  private writing: Promise<void> | undefined;
  private droppedAt = -Infinity;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  record(attempt: Attempt): void {
    if (this.waiting.length >= MAX_WAITING) {
      this.waiting.shift();
      this.warnDropped('the attempts log is behind');
    }
    this.waiting.push(attempt);
    this.writing ??= this.writeAll();
  }

  /** Resolves once every attempt recorded so far is written (or dropped). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    // The check and the reset run in one turn: an attempt recorded after them starts a new write.
    while (this.waiting.length > 0) {
      const rows = this.waiting.splice(0, MAX_ROWS);
      try {
        await this.db.write(endpointSql.logAttempts(rows.length), rows.flatMap(values));
      } catch (error) {
        this.warnDropped((error as Error).message);
      }
    }
    this.writing = undefined;
  }

  private warnDropped(reason: string): void {
    if (performance.now() - this.droppedAt < 60_000) return;
    this.droppedAt = performance.now();
    this.logger.warn('webhook attempts not logged', { reason });
  }
}

function values(attempt: Attempt): unknown[] {
  return [
    attempt.endpoint,
    attempt.eventId,
    attempt.eventType,
    attempt.attemptedAt,
    attempt.succeeded ? 1 : 0,
    attempt.responseStatus,
    attempt.durationMs,
    attempt.error?.slice(0, 200) ?? null,
    attempt.responseBody,
  ];
}

/** Now as `YYYY-MM-DD HH:MM:SS.mmm`, UTC, as the attempts table takes it. */
export function utcNow(nowMs = Date.now()): string {
  return new Date(nowMs).toISOString().slice(0, 23).replace('T', ' ');
}
