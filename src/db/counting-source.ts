import type { PoolConnection } from 'mysql2';
import type { ConnectionCallback, ConnectionPool, ConnectionSource, PoolUsage } from './connection-source.js';

/**
 * A pool that counts the connections it has handed out and the requests it has not answered yet.
 *
 * Counted here, not from mysql2's pool events, which cannot keep exact counts (mysql2 3.24,
 * lib/base/pool.js): 'release' fires only when a connection goes back to the free list (line 185),
 * not when it passes straight to a queued request (lines 177-182) nor when it is destroyed in use
 * (lib/pool_connection.js:57-60, then base/pool.js:313-319); a request leaves the queue it entered
 * with 'enqueue' (line 118) without any event (lines 144, 161, 178). PoolCluster keeps its servers'
 * pools to itself (lib/pool_cluster.js:205-210), so their events cannot be heard at all.
 */
export class CountingSource implements ConnectionSource {
  private readonly handedOut = new Set<PoolConnection>();
  private unanswered = 0;

  constructor(private readonly pool: ConnectionPool) {}

  getConnection(callback: ConnectionCallback): void {
    this.unanswered++;
    this.pool.getConnection((error, connection) => {
      this.unanswered--;
      if (!error) this.handedOut.add(connection);
      callback(error, connection);
    });
  }

  giveBack(connection: PoolConnection, broken: boolean): void {
    this.handedOut.delete(connection);
    this.pool.returned?.(connection);
    if (broken) connection.destroy();
    else connection.release();
  }

  /**
   * A request whose deadline passed while mysql2 still queues it counts as waiting until mysql2
   * answers it: it keeps its place in mysql2's queue, against queueLimit, until then.
   */
  usage(): PoolUsage {
    return { inUse: this.handedOut.size, waiting: this.unanswered };
  }

  failed(connection: PoolConnection, error: unknown): void {
    this.pool.failed?.(connection, error);
  }

  end(callback: () => void): void {
    this.pool.end(callback);
  }
}
