import mysql, { type PoolCluster, type PoolConnection, type PoolNamespace } from 'mysql2';
import { endpointName } from '../../config/db-servers.js';
import type { DbConfig } from '../../config/environment.js';
import type { Logger } from '../../log/logger.js';
import type { ConnectionCallback, ConnectionPool } from '../connection-source.js';
import { poolOptions } from '../pool.js';
import type { PoolTuning } from '../pool-tuning.js';
import { prepareSession } from '../session.js';
import { NodeHealthCheck } from './node-health.js';

/**
 * Several servers used as one cluster: every statement goes to the first server, in DB_HOST order,
 * that is usable. mysql2's PoolCluster keeps a pool per server, tries them in the order they were
 * added (ORDER), and takes a server whose connection fails offline for `nodeRetryMs` while it
 * retries on the next (canRetry). A health check every `healthCheckIntervalMs` also leaves out a
 * server that does not answer, or a Galera node that is not ready and Synced (one still joining
 * accepts connections but refuses statements): the cluster is then asked only for the servers
 * that passed.
 */
export class ClusterPool implements ConnectionPool {
  private readonly cluster: PoolCluster;
  private readonly names: string[];
  /**
   * PoolCluster builds each server's pool inside add() and passes none of its events on
   * (node_modules/mysql2/lib/pool_cluster.js:205-210), so no pool's 'connection' event can prepare
   * the session: a connection is prepared the first time it is handed out instead.
   */
  private readonly prepared = new WeakSet<PoolConnection>();
  private readonly checks: NodeHealthCheck[];
  private readonly healthy: boolean[];
  /** The servers to try, in DB_HOST order: those that passed their last check, or all when none did. */
  private usable: PoolNamespace;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    db: DbConfig,
    private readonly tuning: PoolTuning,
    private readonly logger?: Logger,
  ) {
    const retryMs = tuning.nodeRetryMs;
    this.cluster = mysql.createPoolCluster({ canRetry: true, removeNodeErrorCount: 1, restoreNodeTimeout: retryMs, defaultSelector: 'ORDER' });
    this.names = db.servers.map(endpointName);
    db.servers.forEach((server, i) => this.cluster.add(this.names[i]!, poolOptions(db, server, tuning)));
    this.cluster.on('offline', (name: string) => this.logger?.warn('database server left out after a failed connection', { server: name, retryInMs: retryMs }));
    this.cluster.on('online', (name: string) => this.logger?.info('database server connected again', { server: name }));
    this.intervalMs = tuning.healthCheckIntervalMs;
    this.checks = db.servers.map((server) => new NodeHealthCheck(db, server, Math.max(this.intervalMs, tuning.connectTimeoutMs)));
    // Until the first check, every server counts as healthy: starting does not wait for checks.
    this.healthy = db.servers.map(() => true);
    this.usable = this.namespaceOf(this.names);
    void this.checkAll();
  }

  getConnection(callback: ConnectionCallback): void {
    this.usable.getConnection((error, connection) => {
      if (!error && !this.prepared.has(connection)) {
        this.prepared.add(connection);
        prepareSession(connection, this.tuning.testing);
      }
      callback(error, connection);
    });
  }

  end(callback: () => void): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const check of this.checks) check.close();
    this.cluster.end(() => callback());
  }

  /**
   * The cluster's namespace of exactly these servers. PoolCluster keeps them in the order they were
   * added (pool_cluster.js:211), ORDER takes the first that is online (lines 22-24), and canRetry asks
   * the next after a failure (lines 74-80); of() keeps one namespace per pattern (lines 192-196).
   */
  private namespaceOf(names: string[]): PoolNamespace {
    const escaped = names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    // of() takes a RegExp as the pattern (pool_cluster.js:40-42); its typings say only string.
    return this.cluster.of(new RegExp(`^(?:${escaped.join('|')})$`) as unknown as string, 'ORDER');
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
    this.usable = this.namespaceOf(passed.length > 0 ? passed : this.names);
  }
}
