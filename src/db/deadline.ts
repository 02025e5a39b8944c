import type { SpanScope } from '../tracing/span-scope.js';

/**
 * The moment by which one store operation must be over, waiting for a connection included; and,
 * while spans are exported, the requests it serves, whose spans its statements' spans belong to.
 */
export class Deadline {
  private readonly at: number;

  /** `startedAt` (a performance.now() reading) is when the operation was asked for, if earlier than now. */
  constructor(
    budgetMs: number,
    startedAt = performance.now(),
    readonly trace?: SpanScope,
  ) {
    this.at = startedAt + budgetMs;
  }

  remainingMs(): number {
    return Math.max(0, this.at - performance.now());
  }
}

/** The database did not answer in time; the connection involved, if any, has been destroyed. */
export class DatabaseTimeoutError extends Error {
  readonly code = 'DB_DEADLINE_EXCEEDED';

  constructor(
    message: string,
    /** False when no connection was had in time: the statement never left this process. */
    readonly statementSent: boolean,
  ) {
    super(message);
  }
}
