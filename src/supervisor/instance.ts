import cluster from 'node:cluster';
import { createApp, type App } from '../app.js';
import { socketOf } from '../config/db-servers.js';
import type { Config } from '../config/environment.js';
import { EmbeddedServerError } from '../embedded-db/index.js';
import { poolTuning } from '../db/pool-tuning.js';
import { openServiceDatabase, type ServiceDatabase } from '../embedded-db/service-database.js';
import { workerCounters } from '../limits/worker-counters.js';
import type { Logger } from '../log/logger.js';
import { answerPrimary, askPrimary } from '../metrics/cluster.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { featureSummary } from '../startup/feature-summary.js';
import { SCHEMA_PENDING, startupFields } from '../startup/startup-line.js';
import { stopWhenDatabaseDies } from './database-watch.js';
import { logFinalLine } from './final-line.js';
import { isMessage, schemaReadyMessage, schemaWantedMessage, skipShutdownDelayMessage, type SchemaPhaseMessage } from './messages.js';
import { interactiveStop, ShutdownDelay } from './shutdown-delay.js';
import { startTracing } from '../tracing/tracing.js';

export const SHUTDOWN_DRAIN_MS = 10_000;

/** A start that cannot go on: one line for the person at the terminal, exit 1. */
export function failStart(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** Printed once, to the terminal only, so the operator can use the list endpoint at all. */
/**
 * A newcomer's start without ACCESS_PASSWORD: the one generated for this run, printed once on
 * stderr, never in the log lines of stdout (which may be shipped anywhere): a JSON warning line when
 * the logs are JSON, two lines of text at a terminal.
 */
export function warnGeneratedPassword(config: Config): void {
  if (!config.accessPasswordGenerated) return;
  const json = (config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json')) === 'json';
  const msg = 'ACCESS_PASSWORD is not set: a password was generated for this run; it changes on every start, set ACCESS_PASSWORD to keep one';
  process.stderr.write(
    json
      ? `${JSON.stringify({ time: new Date().toISOString(), level: 'warn', msg, generatedPassword: config.accessPassword })}\n`
      : `WARNING: ACCESS_PASSWORD is not set. Generated password for this run: ${config.accessPassword}\nIt changes on every start; set ACCESS_PASSWORD to keep one.\n`,
  );
}

/** Token settings with AUTH=off do nothing: said once, so that no one believes the writes are protected. */
export function warnIgnoredAuthSettings(config: Config, logger: Logger): void {
  const ignored = config.auth.ignored;
  if (ignored === undefined) return;
  logger.warn('AUTH is off: no request needs a token, and these settings are ignored (set AUTH=writes or AUTH=all to use them)', { ignored });
}

/** The service's database, or the one start-up line that says why the embedded one cannot start. */
async function orFail(opening: Promise<ServiceDatabase>): Promise<ServiceDatabase> {
  try {
    return await opening;
  } catch (error) {
    if (!(error instanceof EmbeddedServerError)) throw error;
    failStart(`The embedded database (DB_HOST=embedded) cannot start: ${error.message}`);
  }
}

export function openDatabaseOrFail(config: Config): Promise<ServiceDatabase> {
  return orFail(openServiceDatabase(config));
}

/**
 * One serving process: the whole service (WORKERS=1, with the embedded database if DB_HOST=embedded),
 * or one of several workers. A worker leaves schema set-up to the primary and is told when it is
 * done; the primary counts the guessing limit and RATE_LIMIT of every worker; a worker's `/metrics`
 * shows the whole service's figures, merged by the primary, and METRICS_PORT is the primary's.
 * SIGTERM/SIGINT turn `/readyz` to 503 at once, go on serving for SHUTDOWN_DELAY_S (a second
 * signal cuts that short), then drain it (then stop the embedded database) and exit 0.
 */
export async function runInstance(config: Config, logger: Logger): Promise<void> {
  const worker = cluster.isWorker;
  if (worker && config.embedded !== undefined && socketOf(config.db) === undefined) {
    failStart('A worker never starts the embedded database: its primary hands it the socket (DB_SOCKET)');
  }
  let app: App | undefined;
  let metricsServer: MetricsServer | undefined;
  const opening = openServiceDatabase(config);

  // Registered first: a signal during the embedded database's start still stops it cleanly.
  let stopping = false;
  const delay = new ShutdownDelay(config.shutdownDelaySeconds * 1000);
  /** `/readyz` answers 503 at once; with `delayed` (a signal), the rest is served for SHUTDOWN_DELAY_S before the drain. */
  const stop = (signal: string, exitCode = 0, delayed = true): void => {
    if (stopping) return;
    stopping = true;
    // Nothing is in rotation before the app exists: a signal during the start drains at once.
    // Ctrl-C at a terminal is a developer stopping their own run: no balancer to wait for.
    const pausing = delayed && app !== undefined && !interactiveStop(signal);
    logger.info('shutting down', { signal, delayMs: pausing ? delay.ms : 0, drainMs: SHUTDOWN_DRAIN_MS });
    app?.leaveRotation();
    (pausing ? delay.wait() : Promise.resolve(false))
      .then((skipped) => {
        logger.info('draining', { drainMs: SHUTDOWN_DRAIN_MS, ...(skipped ? { delaySkipped: true } : {}) });
        // The HTTP side drains first, while the database still answers its last requests.
        return Promise.all([app?.close(SHUTDOWN_DRAIN_MS), metricsServer?.close()]);
      })
      .then(() => opening)
      .then((database) => database.stop(), () => {})
      .then(
        () => {
          logFinalLine(logger, config, { worker, exitCode });
          process.exit(exitCode);
        },
        (error: unknown) => {
          logger.error('shutdown failed', error);
          process.exit(1);
        },
      );
  };
  // A second signal skips the rest of the delay. A worker leaves that to its primary: one Ctrl-C at a
  // terminal reaches it twice, from the terminal and forwarded by the primary.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!stopping) stop(signal);
    else if (!worker) delay.skip();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  if (worker) {
    // A worker whose primary died, however, drains and goes: nothing would replace or stop it.
    process.on('disconnect', () => stop('primary gone', 0, false));
    process.on('message', (message) => {
      if (isMessage(message, skipShutdownDelayMessage)) delay.skip();
    });
  }

  const database = await orFail(opening);
  // A signal arrived meanwhile: stop() ends the process once the database it waited for is stopped.
  if (stopping) await new Promise(() => {});
  stopWhenDatabaseDies(database, logger, () => stopping, () => stop('embedded database stopped', 1, false));
  if (!worker) {
    warnGeneratedPassword(config);
    warnIgnoredAuthSettings(config, logger);
  }

  const tracing = config.tracing && (await startTracing(config.tracing, logger).catch((error: unknown) => failStart(`Cannot start: ${(error as Error).message}`)));
  app = createApp({
    db: database.db,
    accessPassword: config.accessPassword,
    logger,
    poolTuning: poolTuning({ connectionLimit: config.poolSize }),
    apiCompat: config.apiCompat,
    guessing: config.guessing,
    rateLimit: config.rateLimit,
    // A worker's limits are counted by its primary, for the whole service.
    ...(worker ? { counters: workerCounters(config.guessing, config.rateLimit) } : {}),
    ...(config.sharedLimits ? { sharedLimits: config.sharedLimits } : {}),
    trustProxy: config.trustProxy,
    integrity: { validateEmail: config.validateEmail, uniqueEmail: config.uniqueEmail },
    auth: config.auth,
    ...(config.events ? { events: config.events } : {}),
    ...(config.idempotency ? { idempotency: config.idempotency } : {}),
    ...(config.tls ? { tls: config.tls } : {}),
    ...(tracing ? { tracing } : {}),
    ...(config.metrics
      ? { metrics: { onApiPort: config.metricsPort === undefined, ...(worker ? { read: () => askPrimary() } : {}) } }
      : {}),
  });
  if (worker && app.metrics) answerPrimary(app.metrics.registry);
  try {
    const address = await app.listen(config.port, config.host);
    // Listening before the schema is in place, so that probes answer meanwhile: said so, and 'schema ready' follows.
    logger.info('listening', { schema: SCHEMA_PENDING, ...startupFields(address, database.shown, config.db.database), features: featureSummary(config) });
    if (!worker && config.metrics && config.metricsPort !== undefined) {
      const running = app;
      metricsServer = await startMetricsServer(() => running.readMetrics(), logger, config.metricsPort, config.metricsHost);
      logger.info('metrics listening', { host: metricsServer.address.address, port: metricsServer.address.port });
    }
  } catch (error) {
    // The service stops the database itself: no "stopped unexpectedly", no "shutting down", only the cause.
    stopping = true;
    await app.close(0);
    await database.stop();
    failStart(`Cannot start: ${(error as Error).message}`);
  }
  if (worker) {
    const ready = app;
    let told = false;
    process.on('message', (message) => {
      if (isMessage(message, { type: 'schema-phase' }) && !told) return ready.schemaAt((message as SchemaPhaseMessage).phase);
      // Told once in answer to its question and maybe once more by the primary's round when the set-up ends.
      if (!isMessage(message, schemaReadyMessage) || told) return;
      told = true;
      ready.schemaPrepared();
      logger.info('schema ready');
    });
    process.send?.(schemaWantedMessage);
  } else {
    const running = app;
    running.prepareSchema().then(() => {
      // Resolved without the schema only when stopped first.
      if (!stopping) logger.info('schema ready');
    }, async (error: unknown) => {
      // A schema the service cannot use: nothing to wait for, so the start stops as one that cannot listen does.
      if (stopping) return;
      stopping = true;
      await Promise.all([running.close(0), metricsServer?.close()]).catch(() => {});
      await database.stop().catch(() => {});
      failStart((error as Error).message);
    });
  }
}
