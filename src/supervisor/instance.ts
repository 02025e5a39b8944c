import cluster from 'node:cluster';
import { createApp } from '../app.js';
import type { Config } from '../config.js';
import { defaultTuning } from '../db/pool.js';
import type { Logger } from '../log.js';
import { answerPrimary, askPrimary } from '../metrics/cluster.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { isMessage, schemaReadyMessage, schemaWantedMessage } from './messages.js';

export const SHUTDOWN_DRAIN_MS = 10_000;

/**
 * One serving process: the whole service (WORKERS=1), or one of several workers. A worker leaves
 * schema set-up to the primary and is told when it is done; its `/metrics` shows the whole service's
 * figures, merged by the primary, and METRICS_PORT is the primary's. SIGTERM/SIGINT drain it and exit 0.
 */
export async function runInstance(config: Config, logger: Logger): Promise<void> {
  const worker = cluster.isWorker;
  const app = createApp({
    db: config.db,
    accessPassword: config.accessPassword,
    logger,
    poolTuning: { ...defaultTuning, connectionLimit: config.poolSize },
    apiCompat: config.apiCompat,
    guessing: config.guessing,
    trustProxy: config.trustProxy,
    ...(config.metrics
      ? { metrics: { onApiPort: config.metricsPort === undefined, ...(worker ? { read: () => askPrimary() } : {}) } }
      : {}),
  });
  if (worker && app.metrics) answerPrimary(app.metrics.registry);
  const address = await app.listen(config.port, config.host);
  logger.info('listening', { host: address.address, port: address.port, database: config.db.database });
  let metricsServer: MetricsServer | undefined;
  if (!worker && config.metrics && config.metricsPort !== undefined) {
    metricsServer = await startMetricsServer(() => app.readMetrics(), logger, config.metricsPort, config.host);
    logger.info('metrics listening', { host: metricsServer.address.address, port: metricsServer.address.port });
  }
  if (worker) {
    process.on('message', (message) => {
      if (isMessage(message, schemaReadyMessage)) app.schemaPrepared();
    });
    process.send?.(schemaWantedMessage);
  } else {
    void app.prepareSchema();
  }

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal, drainMs: SHUTDOWN_DRAIN_MS });
    Promise.all([app.close(SHUTDOWN_DRAIN_MS), metricsServer?.close()]).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A worker whose primary died, however, drains and goes: nothing would replace or stop it.
  if (worker) process.on('disconnect', () => stop('primary gone'));
}
