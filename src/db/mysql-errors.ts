import { causeOf, StorageError } from '../errors/storage-error.js';
import { QueueFullError } from './batcher.js';
import { DatabaseTimeoutError } from './deadline.js';

/**
 * What mysql2's errors mean for a statement: the one place that reads their codes, numbers, flags
 * and messages. Each predicate looks through a StorageError to its cause.
 */

/**
 * True when the connection broke (closed, reset, killed, already dead) rather than the statement
 * failing. mysql2 marks those errors `fatal`; our own timeouts are not counted, since the statement
 * may still be running on the server.
 */
export function isConnectionLost(error: unknown): boolean {
  const cause = causeOf(error);
  return !(cause instanceof DatabaseTimeoutError) && (cause as { fatal?: unknown } | null)?.fatal === true;
}

/**
 * Failures that prove a statement changed nothing and may simply run again: the server rolled it
 * back whole (every statement runs alone, in autocommit), or it never reached a server.
 */
const ROLLED_BACK_ERRNOS = new Set([
  1213, // ER_LOCK_DEADLOCK: a deadlock, or a Galera certification conflict lost to another node's write
  1047, // ER_UNKNOWN_COM_ERROR: "WSREP has not yet prepared node for application use"
]);

/** mysql2's PoolCluster: every server is held offline after failed connections; nothing was sent. */
const NO_SERVER_ONLINE = 'POOL_NONEONLINE';

export function wasRolledBack(error: unknown): boolean {
  const { errno, code } = (causeOf(error) ?? {}) as { errno?: unknown; code?: unknown };
  return (typeof errno === 'number' && ROLLED_BACK_ERRNOS.has(errno)) || code === NO_SERVER_ONLINE;
}

/** A short pause before running a rolled-back statement again, random so that conflicting writers part. */
export function retryPauseMs(): number {
  return 10 + Math.random() * 40;
}

/**
 * True when the server refused the statement itself (a constraint, a value it would not store):
 * a single statement that fails so has changed nothing. Lost connections and timeouts leave the
 * outcome unknown.
 */
export function wasRefusedByServer(error: unknown): boolean {
  const cause = causeOf(error);
  const fromServer = typeof (cause as { sqlState?: unknown } | null)?.sqlState === 'string';
  return fromServer && !(cause instanceof DatabaseTimeoutError) && !isConnectionLost(cause);
}

const ACCESS_DENIED_ERRNOS = new Set([
  1045, // ER_ACCESS_DENIED_ERROR: wrong password, or no such user from this host
  1698, // ER_ACCESS_DENIED_NO_PASSWORD_ERROR: an account that takes no password from here (MariaDB's unix_socket root)
]);

/** True when the server refused the login itself: DB_USER and DB_PASSWORD, not the network, are what to check. */
export function isAccessDenied(error: unknown): boolean {
  const errno = errnoOf(error);
  return errno !== undefined && ACCESS_DENIED_ERRNOS.has(errno);
}

const ER_PARSE_ERROR = 1064;
const ER_DUP_ENTRY = 1062;
const ER_NO_SUCH_TABLE = 1146;

/** True when the server did not understand the statement (e.g. RETURNING on a server without it). */
export function isSyntaxError(error: unknown): boolean {
  return errnoOf(error) === ER_PARSE_ERROR;
}

/**
 * True when a unique key already holds a value the statement writes: the server refused it whole.
 * Final, not rolled back: running it again would meet the same row.
 */
export function isDuplicateKey(error: unknown): boolean {
  return errnoOf(error) === ER_DUP_ENTRY;
}

/** True when a table the statement names does not exist (the event tables before EVENTS was ever on). */
export function isNoSuchTable(error: unknown): boolean {
  return errnoOf(error) === ER_NO_SUCH_TABLE;
}

/** The server's error number of the failure (or of the failure it wraps), if it has one. */
function errnoOf(error: unknown): number | undefined {
  const errno = (causeOf(error) as { errno?: unknown } | null)?.errno;
  return typeof errno === 'number' ? errno : undefined;
}

/** mysql2's pool says its own wait queue is full only through this message. */
const POOL_QUEUE_FULL = 'Queue limit reached.';

/** True when work was turned away because too much already waits: a batch queue or the pool's. */
function isQueueFull(error: unknown): boolean {
  const cause = causeOf(error);
  return cause instanceof QueueFullError || (cause instanceof Error && cause.message === POOL_QUEUE_FULL);
}

/** A failed statement as the layers above see it: a StorageError of the kind its cause proves. */
export function storageError(error: unknown, write: boolean): StorageError {
  if (error instanceof StorageError) return error;
  if (isQueueFull(error)) return new StorageError(error, 'busy');
  if (isDuplicateKey(error)) return new StorageError(error, 'duplicate');
  if (!write || wasRefusedByServer(error) || wasRolledBack(error) || neverSent(error)) return new StorageError(error, 'failed');
  return new StorageError(error, 'unknown outcome');
}

/** No connection was had in time: the statement never left this process. */
function neverSent(error: unknown): boolean {
  return error instanceof DatabaseTimeoutError && !error.statementSent;
}
