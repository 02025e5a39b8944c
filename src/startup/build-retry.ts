const ER_LOCK_WAIT_TIMEOUT = 1205;
const ER_QUERY_INTERRUPTED = 1317;
/** Index builds aborted by other nodes' schema changes that one start lives through; one more ends it. */
export const MAX_INTERRUPTIONS = 5;

/** Why an online index build that failed is tried again in a moment. */
export type BuildRetry =
  /** A transaction holds the table: waiting in the queue behind it would hold up every request. */
  | 'table held'
  /** On a Galera node, another node's schema change, applied in total order, aborted this one. */
  | 'interrupted';

/**
 * Whether a failed build is tried again, and why; undefined when its error ends the start. Trying
 * again is safe: the build is idempotent, and the next round first reads whether it was recorded.
 * Elsewhere an interrupted build was killed by someone, and stays stopped.
 */
export function buildRetryFor(error: unknown, galera: boolean, interruptionsSoFar: number): BuildRetry | undefined {
  const errno = (error as { errno?: unknown } | null)?.errno;
  if (errno === ER_LOCK_WAIT_TIMEOUT) return 'table held';
  if (galera && errno === ER_QUERY_INTERRUPTED && interruptionsSoFar < MAX_INTERRUPTIONS) return 'interrupted';
  return undefined;
}
