import type { PoolConnection } from 'mysql2';

/**
 * A statement abandoned because the cluster left its server (it stopped answering, or left the
 * primary component): like a lost connection (`fatal`), a read runs again elsewhere and a write's
 * outcome is unknown, since the server may still apply it. mysql2 cannot fail a statement in
 * flight itself: ending the connection leaves its callback waiting.
 */
export class NodeLeftError extends Error {
  readonly code = 'DB_NODE_LEFT';
  readonly fatal = true;

  constructor() {
    super('The database server was left while the statement ran');
  }
}

const LEFT = Symbol('node left');
/** Connections of a cluster, the only ones that can be abandoned: a single server's statements skip the watch. */
const watched = new WeakSet<PoolConnection>();
const abandoned = new WeakSet<PoolConnection>();

/** Lets abandon() fail the connection's statements. */
export function watch(connection: PoolConnection): void {
  watched.add(connection);
}

/** Fails the statement running on the connection, if any, and every later one, with a NodeLeftError (see whenLeft). */
export function abandon(connection: PoolConnection): void {
  abandoned.add(connection);
  connection.emit(LEFT);
}

/** Calls `fail` if the connection is abandoned (or already was) before the returned function is called. */
export function whenLeft(connection: PoolConnection, fail: (error: NodeLeftError) => void): () => void {
  if (!watched.has(connection)) return ignore;
  if (abandoned.has(connection)) {
    fail(new NodeLeftError());
    return ignore;
  }
  const listener = (): void => fail(new NodeLeftError());
  connection.once(LEFT, listener);
  return () => connection.removeListener(LEFT, listener);
}

function ignore(): void {}
