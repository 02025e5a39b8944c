import { createApp, type App } from './app.js';
import { ConfigError, entryDefaults, loadConfig, type Config } from './config.js';
import { EmbeddedServerError } from './db/embedded/index.js';
import { openServiceDatabase, type ServiceDatabase } from './db/service-database.js';
import { createLogger } from './log.js';
import { startMetricsServer, type MetricsServer } from './metrics/server.js';
import { startupFields } from './startup-line.js';

const SHUTDOWN_DRAIN_MS = 10_000;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig(process.env, entryDefaults());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  fail(`Invalid configuration: ${error.message}`);
}

const logger = createLogger(undefined, config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'));
let app: App | undefined;
let metricsServer: MetricsServer | undefined;
const opening = openServiceDatabase(config);

// Registered first: a signal during the embedded database's start still stops it cleanly.
let stopping = false;
const stop = (signal: string, exitCode = 0): void => {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal, drainMs: SHUTDOWN_DRAIN_MS });
  // The HTTP side drains first, while the database still answers its last requests.
  Promise.all([app?.close(SHUTDOWN_DRAIN_MS), metricsServer?.close()])
    .then(() => opening)
    .then((database) => database.stop(), () => {})
    .then(
      () => process.exit(exitCode),
      (error: unknown) => {
        logger.error('shutdown failed', error);
        process.exit(1);
      },
    );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

let database: ServiceDatabase;
try {
  database = await opening;
} catch (error) {
  if (!(error instanceof EmbeddedServerError)) throw error;
  fail(`The embedded database (DB_HOST=embedded) cannot start: ${error.message}`);
}
// A signal arrived meanwhile: stop() ends the process once the database it waited for is stopped.
if (stopping) await new Promise(() => {});
// Without the database it started itself the service cannot recover: it says so and exits non-zero.
void database.exited?.then(() => {
  if (stopping) return;
  logger.warn('the embedded database stopped unexpectedly', { db: database.shown, log: database.logFile });
  stop('embedded database stopped', 1);
});

if (config.accessPasswordGenerated) {
  // Printed once, to the terminal only, so the operator can use the list endpoint at all.
  process.stderr.write(
    `WARNING: ACCESS_PASSWORD is not set. Generated password for this run: ${config.accessPassword}\n` +
      'It changes on every start; set ACCESS_PASSWORD to keep one.\n',
  );
}

app = createApp({
  db: database.db,
  accessPassword: config.accessPassword,
  logger,
  apiCompat: config.apiCompat,
  guessing: config.guessing,
  trustProxy: config.trustProxy,
  ...(config.metrics ? { metrics: { onApiPort: config.metricsPort === undefined } } : {}),
});
try {
  const address = await app.listen(config.port, config.host);
  logger.info('listening', startupFields(address, database.shown, config.db.database));
  if (config.metrics && config.metricsPort !== undefined) {
    const running = app;
    metricsServer = await startMetricsServer(() => running.readMetrics(), logger, config.metricsPort, config.host);
    logger.info('metrics listening', { host: metricsServer.address.address, port: metricsServer.address.port });
  }
} catch (error) {
  await app.close(0);
  await database.stop();
  fail(`Cannot start: ${(error as Error).message}`);
}
void app.prepareSchema();
