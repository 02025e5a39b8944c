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
const ER_LOCK_DEADLOCK = 1213; // a deadlock, or a Galera certification conflict: certification is decided alike on every node
const ER_UNKNOWN_COM_ERROR = 1047; // "WSREP has not yet prepared node for application use": the node is not in the primary component

/** mysql2's PoolCluster: every server is held offline after failed connections; nothing was sent. */
const NO_SERVER_ONLINE = 'POOL_NONEONLINE';

/**
 * True when the failure proves nothing was changed, so the statement (or transaction) may run again.
 * `changeSent`: a write in autocommit, or a COMMIT, had reached the server. A node refusing it for
 * not being in the primary component (1047) proves nothing then: the node may have fallen out of the
 * cluster while the change replicated, and the others may have committed it.
 */
export function wasRolledBack(error: unknown, changeSent = false): boolean {
  const { errno, code } = (causeOf(error) ?? {}) as { errno?: unknown; code?: unknown };
  return errno === ER_LOCK_DEADLOCK || (!changeSent && errno === ER_UNKNOWN_COM_ERROR) || code === NO_SERVER_ONLINE;
}

/** True when the node said it is not in the cluster's primary component: it must not be used until it is again. */
export function isNodeNotPrimary(error: unknown): boolean {
  return errnoOf(error) === ER_UNKNOWN_COM_ERROR;
}

/**
 * Errors a server answers with although the change may have been committed: Galera lost the cluster
 * while replicating the commit (1180), a wait during it timed out (1205, also InnoDB's lock wait), the
 * statement was killed (1317, 1927), the server is going away (1053), or the node left the primary
 * component (1047). Another node may hold the change: the outcome is unknown, never "refused".
 */
const OUTCOME_UNKNOWN_ERRNOS = new Set([
  1180, // ER_ERROR_DURING_COMMIT
  1205, // ER_LOCK_WAIT_TIMEOUT
  1317, // ER_QUERY_INTERRUPTED
  1927, // ER_CONNECTION_KILLED
  1053, // ER_SERVER_SHUTDOWN
  ER_UNKNOWN_COM_ERROR,
]);

/** A short pause before running a rolled-back statement again, random so that conflicting writers part. */
export function retryPauseMs(): number {
  return 10 + Math.random() * 40;
}

/**
 * True when the server refused the statement itself (a constraint, a value it would not store):
 * a single statement that fails so has changed nothing. Lost connections, timeouts and the errors
 * of OUTCOME_UNKNOWN_ERRNOS leave the outcome unknown.
 */
export function wasRefusedByServer(error: unknown): boolean {
  const cause = causeOf(error);
  const fromServer = typeof (cause as { sqlState?: unknown } | null)?.sqlState === 'string';
  const errno = errnoOf(cause);
  return fromServer && !(cause instanceof DatabaseTimeoutError) && !isConnectionLost(cause) && !(errno !== undefined && OUTCOME_UNKNOWN_ERRNOS.has(errno));
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
  if (!write || wasRefusedByServer(error) || wasRolledBack(error, true) || neverSent(error)) return new StorageError(error, 'failed');
  return new StorageError(error, 'unknown outcome');
}

/** No connection was had in time: the statement never left this process. */
function neverSent(error: unknown): boolean {
  return error instanceof DatabaseTimeoutError && !error.statementSent;
}
