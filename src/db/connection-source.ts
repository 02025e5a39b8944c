import type { PoolConnection } from 'mysql2';

export type ConnectionCallback = (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void;

/** What hands out pooled connections: one server's mysql2 pool, or a cluster of servers (src/db/cluster/). */
export interface ConnectionPool {
  getConnection(callback: ConnectionCallback): void;
  end(callback: () => void): void;
  /** A connection getConnection handed out is back, given back or destroyed. */
  returned?(connection: PoolConnection): void;
  /** A statement on a connection it handed out failed so: a cluster may leave that server out. */
  failed?(connection: PoolConnection, error: unknown): void;
}

export interface PoolUsage {
  /** Connections handed out and not yet given back. */
  inUse: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

/** Where the store gets its connections, and gives each one back, counted (for the metrics). */
export interface ConnectionSource extends ConnectionPool {
  /** Takes back a connection getConnection handed out: for the next request, or closed for good when `broken`. */
  giveBack(connection: PoolConnection, broken: boolean): void;
  usage(): PoolUsage;
}
