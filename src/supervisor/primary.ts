import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config.js';
import { connectionsPerInstance, maxConnections } from '../db/connection-budget.js';
import { SchemaSetup } from '../db/schema-setup.js';
import type { Logger } from '../log.js';
import { collectFromWorkers, serveWorkers } from '../metrics/cluster.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { SHUTDOWN_DRAIN_MS, warnGeneratedPassword } from './instance.js';
import { isMessage, schemaReadyMessage, schemaWantedMessage } from './messages.js';
import { RestartBackoff } from './restart-backoff.js';

/** Past the drain, workers still running are killed: they had their 10 s and then some. */
const STRAGGLER_GRACE_MS = 5000;

/**
 * The primary of WORKERS=N: it serves no requests itself. It forks N workers that share the port,
 * replaces any that dies (with a growing pause while they keep dying), sets up the schema once and
 * tells every worker when it is in place. With METRICS=on it merges the workers' figures for their
 * `/metrics`, and serves METRICS_PORT itself. SIGTERM/SIGINT drain every worker; it exits 0 once
 * all have, 1 if some had to be killed. If a worker dies before any ever listened (the port is
 * taken, say), the service cannot start: it exits 1, as a single process would.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  warnGeneratedPassword(config);
  // Every worker must accept the same password, also a generated one.
  const workerEnv = { ACCESS_PASSWORD: config.accessPassword };
  const backoff = new RestartBackoff();
  const startedAt = new Map<Worker, number>();
  const schemaSetup = new SchemaSetup(config.db, logger);
  let schemaReady = false;
  let stopping = false;
  let killedStragglers = false;
  let anyListened = false;

  let metricsServer: MetricsServer | undefined;
  if (config.metrics) serveWorkers();
  if (config.metrics && config.metricsPort !== undefined) {
    metricsServer = await startMetricsServer(() => collectFromWorkers(), logger, config.metricsPort, config.host);
    logger.info('metrics listening', { host: metricsServer.address.address, port: metricsServer.address.port });
  }
  const exit = (code: number): void => {
    void Promise.resolve(metricsServer?.close()).finally(() => process.exit(code));
  };

  const fork = (): void => {
    const worker = cluster.fork(workerEnv);
    startedAt.set(worker, performance.now());
    worker.on('message', (message) => {
      if (schemaReady && isMessage(message, schemaWantedMessage)) worker.send(schemaReadyMessage);
    });
  };
  const running = (): Worker[] => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);

  cluster.on('listening', () => {
    anyListened = true;
  });
  cluster.on('exit', (worker, code, signal) => {
    const livedMs = performance.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) {
      if (running().length === 0) exit(killedStragglers ? 1 : 0);
      return;
    }
    if (!anyListened) {
      logger.error('a worker could not start, stopping', new Error(`worker exited (${signal ?? `code ${code}`}) before listening`), {
        pid: worker.process.pid,
      });
      stopping = true;
      for (const other of running()) other.process.kill('SIGKILL');
      return exit(1);
    }
    const pauseMs = backoff.next(livedMs);
    logger.warn('worker died, replacing it', { pid: worker.process.pid, code, signal, livedMs: Math.round(livedMs), replaceInMs: pauseMs });
    setTimeout(() => {
      if (!stopping) fork();
    }, pauseMs);
  });

  logger.info('starting workers', { workers: config.workers, poolSizePerWorker: config.poolSize });
  for (let i = 0; i < config.workers; i++) fork();
  void schemaSetup.run().then(async (ready) => {
    if (!ready) return;
    schemaReady = true;
    for (const worker of running()) if (worker.isConnected()) worker.send(schemaReadyMessage);
    const needed = connectionsPerInstance(config.workers, config.poolSize, config.db.nodes?.length ?? 1);
    const max = await maxConnections(config.db);
    if (max !== undefined && needed > max / 2) {
      logger.warn('WORKERS x DB_POOL_SIZE may reach max_connections', { workers: config.workers, poolSize: config.poolSize, needed, maxConnections: max });
    }
  });

  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    schemaSetup.stop();
    logger.info('shutting down', { signal, drainMs: SHUTDOWN_DRAIN_MS, workers: running().length });
    if (running().length === 0) exit(0);
    // Straight to each worker's process: cluster's worker.kill() would disconnect it first and end its drain.
    for (const worker of running()) worker.process.kill(signal);
    setTimeout(() => {
      killedStragglers = true;
      for (const worker of running()) worker.process.kill('SIGKILL');
    }, SHUTDOWN_DRAIN_MS + STRAGGLER_GRACE_MS).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
