import mysql, { type PoolCluster, type PoolConnection, type PoolNamespace } from 'mysql2';
import { endpointName } from '../../config/db-servers.js';
import type { DbConfig } from '../../config/environment.js';
import type { Logger } from '../../log/logger.js';
import type { ConnectionCallback, ConnectionPool } from '../connection-source.js';
import { DurabilityCheck } from '../durability-check.js';
import { isNodeNotPrimary } from '../mysql-errors.js';
import { abandon, watch } from '../node-left.js';
import { poolOptions } from '../pool.js';
import type { PoolTuning } from '../pool-tuning.js';
import { prepareSession } from '../session.js';
import { NodeHealthCheck, NOT_PRIMARY, NOT_SYNCED, type HealthFailure } from './node-health.js';

/**
 * Several servers used as one cluster: every statement goes to the first server, in DB_HOST order,
 * that is in use. mysql2's PoolCluster keeps a pool per server, tries them in the order they were
 * added (ORDER), and takes a server whose connection fails offline for `nodeRetryMs` while it
 * retries on the next (canRetry). On top of that a server is left out when it fails a health check
 * (every `healthCheckIntervalMs`, each bounded by `healthCheckTimeoutMs`: no answer, not ready and
 * Synced, not in the primary component) or a statement on it says it left the primary component
 * (1047); unless it is only a donor or joiner, the statements running on it are abandoned too
 * (their writes answer "outcome unknown").
 * It is taken back once it has passed every check for `readmitAfterMs`. The cluster is asked only
 * for the servers in use, or for all when none is.
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
  /** Connections handed out and not back yet, with their server's index: those abandoned when it is left. */
  private readonly inUse = new Map<PoolConnection, number>();
  private readonly checks: NodeHealthCheck[];
  private readonly durability: DurabilityCheck | undefined;
  /** Per server: in use (true), or left out and passing its checks since then (a performance.now() reading), or failing (undefined). */
  private readonly standing: Array<true | number | undefined>;
  private usable: PoolNamespace;
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
    this.checks = db.servers.map((server) => new NodeHealthCheck(db, server, tuning.healthCheckTimeoutMs));
    this.durability = logger && new DurabilityCheck(logger);
    // Until the first check, every server is in use: starting does not wait for checks.
    this.standing = db.servers.map(() => true);
    this.usable = this.namespaceOf(this.names);
    void this.checkAll();
  }

  getConnection(callback: ConnectionCallback): void {
    this.usable.getConnection((error, connection) => {
      if (!error) {
        if (!this.prepared.has(connection)) {
          this.prepared.add(connection);
          prepareSession(connection, this.tuning.testing);
          this.durability?.inspect(connection, nameOf(connection));
          watch(connection);
        }
        this.inUse.set(connection, this.names.indexOf(nameOf(connection)));
      }
      callback(error, connection);
    });
  }

  returned(connection: PoolConnection): void {
    this.inUse.delete(connection);
  }

  /** A node that says it left the primary component is left out at once, before its next check. */
  failed(connection: PoolConnection, error: unknown): void {
    const index = this.inUse.get(connection);
    if (index !== undefined && index >= 0 && isNodeNotPrimary(error)) this.leave(index, NOT_PRIMARY, true);
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

  /** Checks every server at once (each bounded by its timeout), then again `healthCheckIntervalMs` later. */
  private async checkAll(): Promise<void> {
    const failures = await Promise.all(this.checks.map((check) => check.failure()));
    if (this.closed) return;
    this.timer = setTimeout(() => void this.checkAll(), this.tuning.healthCheckIntervalMs);
    this.timer.unref();
    failures.forEach((failure, i) => this.judge(i, failure));
  }

  private judge(index: number, failure: HealthFailure): void {
    const standing = this.standing[index];
    if (failure !== undefined) return this.leave(index, failure, failure !== NOT_SYNCED);
    if (standing === true) return;
    const now = performance.now();
    if (standing === undefined) {
      this.standing[index] = now;
    } else if (now - standing >= this.tuning.readmitAfterMs) {
      this.standing[index] = true;
      this.logger?.info('database server taken back', { server: this.names[index], healthyForMs: Math.round(now - standing) });
      this.useServersInUse();
    }
  }

  /**
   * Stops handing out the server's connections; with `abandonInFlight` (it stopped answering, or
   * cannot commit) also fails the statements running on them. A donor or joiner finishes its own.
   */
  private leave(index: number, reason: string, abandonInFlight: boolean): void {
    const wasInUse = this.standing[index] === true;
    this.standing[index] = undefined;
    if (!wasInUse) return;
    this.logger?.warn('database server left out', { server: this.names[index], reason });
    this.useServersInUse();
    if (!abandonInFlight) return;
    for (const [connection, server] of this.inUse) if (server === index) abandon(connection);
  }

  private useServersInUse(): void {
    const inUse = this.names.filter((_, i) => this.standing[i] === true);
    // With no server in use, each is still tried: the check may be what is failing.
    this.usable = this.namespaceOf(inUse.length > 0 ? inUse : this.names);
  }
}

/** The DB_HOST entry a connection was opened to, as endpointName names it. */
function nameOf(connection: PoolConnection): string {
  const { host, port, socketPath } = connection.config;
  return socketPath ?? `${host}:${port}`;
}
