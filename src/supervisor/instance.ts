import cluster from 'node:cluster';
import { createApp } from '../app.js';
import type { Config } from '../config.js';
import { defaultTuning } from '../db/pool.js';
import type { Logger } from '../log.js';
import { isMessage, schemaReadyMessage, schemaWantedMessage } from './messages.js';

export const SHUTDOWN_DRAIN_MS = 10_000;

/**
 * One serving process: the whole service (WORKERS=1), or one of several workers. A worker leaves
 * schema set-up to the primary and is told when it is done. SIGTERM/SIGINT drain it and exit 0.
 */
export async function runInstance(config: Config, logger: Logger): Promise<void> {
  const app = createApp({
    db: config.db,
    accessPassword: config.accessPassword,
    logger,
    poolTuning: { ...defaultTuning, connectionLimit: config.poolSize },
  });
  const address = await app.listen(config.port, config.host);
  logger.info('listening', { host: address.address, port: address.port, database: config.db.database });
  if (cluster.isWorker) {
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
    app.close(SHUTDOWN_DRAIN_MS).then(
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
  if (cluster.isWorker) process.on('disconnect', () => stop('primary gone'));
}
