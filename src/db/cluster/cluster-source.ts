import mysql, { type Pool, type PoolCluster, type PoolConnection, type PoolNamespace } from 'mysql2';
import { endpointName } from '../../config/db-servers.js';
import type { DbConfig } from '../../config/environment.js';
import type { Logger } from '../../log/logger.js';
import type { ConnectionSource } from '../connection-source.js';
import { poolOptions, poolUsage, type PoolUsage } from '../pool.js';
import type { PoolTuning } from '../pool-tuning.js';
import { prepareSession } from '../session.js';
import { NodeHealthCheck } from './node-health.js';

type Callback = (error: NodeJS.ErrnoException | null, connection: PoolConnection) => void;

/**
 * Several servers used as one cluster: every statement goes to the first server, in DB_HOST order,
 * that is usable. mysql2's PoolCluster keeps a pool per server and takes a server whose connection
 * fails offline for `nodeRetryMs` (then tries it again); a health check every
 * `healthCheckIntervalMs` also leaves out a server that does not answer, or a Galera node that is
 * not ready and Synced (one still joining accepts connections but refuses statements), which
 * PoolCluster's own ORDER selector cannot skip.
 */
export class ClusterSource implements ConnectionSource {
  private readonly cluster: PoolCluster;
  private readonly names: string[];
  /** Each server's namespace of the cluster, by name: PoolCluster builds its key on every of() call. */
  private readonly servers = new Map<string, PoolNamespace>();
  private readonly checks: NodeHealthCheck[];
  private readonly healthy: boolean[];
  /** The servers to try, in order: those that passed their last check, or all when none did. */
  private order: string[];
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    db: DbConfig,
    tuning: PoolTuning,
    private readonly logger?: Logger,
  ) {
    const retryMs = tuning.nodeRetryMs;
    this.cluster = mysql.createPoolCluster({ canRetry: true, removeNodeErrorCount: 1, restoreNodeTimeout: retryMs, defaultSelector: 'ORDER' });
    this.names = db.servers.map(endpointName);
    db.servers.forEach((server, i) => this.cluster.add(this.names[i]!, poolOptions(db, server, tuning)));
    for (const name of this.names) this.servers.set(name, this.cluster.of(name));
    // Each server's own pool announces its new connections, before handing them out, as createPool's does.
    for (const pool of this.nodePools()) pool.on('connection', (connection: PoolConnection) => prepareSession(connection, tuning.testing));
    this.cluster.on('offline', (name: string) => this.logger?.warn('database server left out after a failed connection', { server: name, retryInMs: retryMs }));
    this.cluster.on('online', (name: string) => this.logger?.info('database server connected again', { server: name }));
    this.intervalMs = tuning.healthCheckIntervalMs;
    this.checks = db.servers.map((server) => new NodeHealthCheck(db, server, Math.max(this.intervalMs, tuning.connectTimeoutMs)));
    // Until the first check, every server counts as healthy: starting does not wait for checks.
    this.healthy = db.servers.map(() => true);
    this.order = this.names;
    void this.checkAll();
  }

  getConnection(callback: Callback): void {
    this.tryInOrder(this.order, 0, callback);
  }

  end(callback: () => void): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const check of this.checks) check.close();
    this.cluster.end(() => callback());
  }

  /** The sum over every server's pool. */
  usage(): PoolUsage {
    return this.nodePools().reduce(
      (sum, pool) => {
        const usage = poolUsage(pool);
        return { inUse: sum.inUse + usage.inUse, waiting: sum.waiting + usage.waiting };
      },
      { inUse: 0, waiting: 0 },
    );
  }

  /** PoolCluster answers at once for a server it holds offline, so this walks on without waiting. */
  private tryInOrder(order: string[], index: number, callback: Callback): void {
    this.servers.get(order[index]!)!.getConnection((error, connection) => {
      if (error && index + 1 < order.length) return this.tryInOrder(order, index + 1, callback);
      callback(error, connection);
    });
  }

  /** Every server's mysql2 pool: PoolCluster keeps them in a field it does not declare, read here only. */
  private nodePools(): Pool[] {
    const nodes = (this.cluster as unknown as { _nodes?: Record<string, { pool: Pool }> })._nodes ?? {};
    return Object.values(nodes).map((node) => node.pool);
  }

  /** Checks every server at once, then again `intervalMs` after the slowest answered. */
  private async checkAll(): Promise<void> {
    const results = await Promise.all(this.checks.map((check) => check.usable()));
    if (this.closed) return;
    this.timer = setTimeout(() => void this.checkAll(), this.intervalMs);
    this.timer.unref();
    results.forEach((usable, i) => {
      if (usable !== this.healthy[i]) {
        this.logger?.[usable ? 'info' : 'warn'](usable ? 'database server healthy again' : 'database server failed its health check', {
          server: this.names[i],
        });
      }
      this.healthy[i] = usable;
    });
    const passed = this.names.filter((_, i) => this.healthy[i]);
    // With no server passing its check, each is still tried: the check may be what is failing.
    this.order = passed.length > 0 ? passed : this.names;
  }
}
