import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './log.js';
import { startMetricsServer, type MetricsServer } from './metrics/server.js';

const SHUTDOWN_DRAIN_MS = 10_000;

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`Invalid configuration: ${error.message}\n`);
  process.exit(1);
}

const logger = createLogger();
if (config.accessPasswordGenerated) {
  // Printed once, to the terminal only, so the operator can use the list endpoint at all.
  process.stderr.write(
    `WARNING: ACCESS_PASSWORD is not set. Generated password for this run: ${config.accessPassword}\n` +
      'It changes on every start; set ACCESS_PASSWORD to keep one.\n',
  );
}

const app = createApp({
  db: config.db,
  accessPassword: config.accessPassword,
  logger,
  apiCompat: config.apiCompat,
  guessing: config.guessing,
  trustProxy: config.trustProxy,
  ...(config.metrics ? { metrics: { onApiPort: config.metricsPort === undefined } } : {}),
});
const address = await app.listen(config.port, config.host);
logger.info('listening', { host: address.address, port: address.port, database: config.db.database });
let metricsServer: MetricsServer | undefined;
if (config.metrics && config.metricsPort !== undefined) {
  metricsServer = await startMetricsServer(() => app.readMetrics(), logger, config.metricsPort, config.host);
  logger.info('metrics listening', { host: metricsServer.address.address, port: metricsServer.address.port });
}
void app.prepareSchema();

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
