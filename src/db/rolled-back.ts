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
  const { errno, code } = (error ?? {}) as { errno?: unknown; code?: unknown };
  return (typeof errno === 'number' && ROLLED_BACK_ERRNOS.has(errno)) || code === NO_SERVER_ONLINE;
}

/** A short pause before running a rolled-back statement again, random so that conflicting writers part. */
export function retryPauseMs(): number {
  return 10 + Math.random() * 40;
}
