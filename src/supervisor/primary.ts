import { randomBytes } from 'node:crypto';
import cluster, { type Worker } from 'node:cluster';
import { socketOf } from '../config/db-servers.js';
import type { Config } from '../config/environment.js';
import { connectionsPerInstance, maxConnections } from '../startup/connection-budget.js';
import { schemaNeeds } from '../startup/schema-needs.js';
import { SchemaSetup } from '../startup/schema-setup.js';
import type { ServiceDatabase } from '../embedded-db/service-database.js';
import { serveCounters } from '../limits/primary-counters.js';
import type { Logger } from '../log/logger.js';
import { collectFromWorkers, serveWorkers } from '../metrics/cluster.js';
import { Registry } from '../metrics/registry.js';
import { defaultTuning } from '../db/pool-tuning.js';
import { startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { stopWhenDatabaseDies } from './database-watch.js';
import { logFinalLine } from './final-line.js';
import { openDatabaseOrFail, SHUTDOWN_DRAIN_MS, warnGeneratedPassword, warnIgnoredAuthSettings } from './instance.js';
import { isMessage, schemaPhaseMessage, schemaReadyMessage, schemaWantedMessage, skipShutdownDelayMessage, type SchemaPhaseMessage } from './messages.js';
import { tellWorker } from '../ipc/tell-worker.js';
import { RestartBackoff } from './restart-backoff.js';
import { interactiveStop } from './shutdown-delay.js';

/** Past the delay and the drain, workers still running are killed: they had their 10 s and then some. */
const STRAGGLER_GRACE_MS = 5000;

/**
 * The primary of WORKERS=N: it serves no requests itself. It forks N workers that share the port,
 * replaces any that dies (with a growing pause while they keep dying), sets up the schema once and
 * tells every worker when it is in place. It counts the wrong list passwords and RATE_LIMIT's
 * requests of all workers, so that both limits hold for the whole service. With METRICS=on it
 * merges the workers' figures for their `/metrics`, and serves METRICS_PORT itself. SIGTERM/SIGINT
 * reach every worker, which waits out SHUTDOWN_DELAY_S (a second signal here cuts it short) and
 * drains; it exits 0 once all have, 1 if some had to be killed. If a worker dies before
 * any ever listened (the port is taken, say), the service cannot start: it exits 1, as a single
 * process would.
 * With the embedded database the primary starts it, before any worker, and hands its socket to the
 * workers (DB_SOCKET); it stops it after the last worker has drained. If it dies on its own, the
 * primary stops the workers and exits 1.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  let stopping = false;
  // Registered first: a signal while the embedded database starts still stops it cleanly.
  const earlySignal = (): void => {
    stopping = true;
  };
  process.on('SIGTERM', earlySignal).on('SIGINT', earlySignal);
  const opened = await openDatabaseOrFail(config);
  process.off('SIGTERM', earlySignal).off('SIGINT', earlySignal);
  if (stopping) {
    await opened.stop();
    logFinalLine(logger, config, { worker: false, exitCode: 0 });
    process.exit(0);
  }

  warnGeneratedPassword(config);
  warnIgnoredAuthSettings(config, logger);
  // Every worker must accept the same password, also a generated one, and use the same database.
  // The rest of this process's environment (AUTH, API_KEYS_FILE, JWT_*, ...) reaches them as it is: fork adds to it.
  const workerEnv = { ACCESS_PASSWORD: config.accessPassword, ...embeddedDatabaseEnv(config, opened), ...sharedTicketKeys(config) };
  const backoff = new RestartBackoff();
  const startedAt = new Map<Worker, number>();
  let schemaReady = false;
  let schemaPhase: SchemaPhaseMessage['phase'] = 'starting';
  const schemaSetup = new SchemaSetup(opened.db, logger, {
    needs: schemaNeeds(config),
    onSettled: () => limits.start(),
    onPhase: (phase) => {
      if (phase === 'ready') return;
      schemaPhase = phase;
      for (const worker of running()) tellWorker(worker, schemaPhaseMessage(phase));
    },
  });
  let killedStragglers = false;
  let anyListened = false;

  // Before any worker exists: the guessing limit and RATE_LIMIT are counted here, for the whole service.
  const ownMetrics = config.metrics ? new Registry() : undefined;
  const limits = serveCounters(config.guessing, config.rateLimit, logger, config.sharedLimits && {
    db: opened.db,
    tuning: defaultTuning,
    settings: config.sharedLimits,
    ...(ownMetrics ? { metrics: ownMetrics } : {}),
  });
  let metricsServer: MetricsServer | undefined;
  if (ownMetrics) serveWorkers(ownMetrics);
  if (config.metrics && config.metricsPort !== undefined) {
    metricsServer = await startMetricsServer(() => collectFromWorkers(), logger, config.metricsPort, config.metricsHost);
    logger.info('metrics listening', { host: metricsServer.address.address, port: metricsServer.address.port });
  }
  /** Printed to stderr just before exiting: why a start could not go on. */
  let lastWords: string | undefined;
  // The embedded database goes last, once no worker can use it any more.
  const exit = (code: number): void => {
    void Promise.all([metricsServer?.close(), limits.stop()])
      .then(() => opened.stop())
      .then(
        () => {
          logFinalLine(logger, config, { worker: false, exitCode: code });
          if (lastWords !== undefined) process.stderr.write(`${lastWords}\n`);
          process.exit(code);
        },
        (error: unknown) => {
          logger.error('shutdown failed', error);
          process.exit(1);
        },
      );
  };

  const fork = (): void => {
    const worker = cluster.fork(workerEnv);
    startedAt.set(worker, performance.now());
    worker.on('message', (message) => {
      if (!isMessage(message, schemaWantedMessage)) return;
      if (schemaReady) tellWorker(worker, schemaReadyMessage);
      else tellWorker(worker, schemaPhaseMessage(schemaPhase));
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
      if (running().length === 0) exit(killedStragglers ? 1 : exitCode);
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
    for (const worker of running()) tellWorker(worker, schemaReadyMessage);
    const needed = connectionsPerInstance(config.workers, config.poolSize, config.db.servers.length);
    const max = await maxConnections(opened.db);
    if (max !== undefined && needed > max / 2) {
      logger.warn('WORKERS x DB_POOL_SIZE may reach max_connections', { workers: config.workers, poolSize: config.poolSize, needed, maxConnections: max });
    }
  }, (error: unknown) => {
    // A schema the service cannot use: the workers are stopped, and the start ends as one that cannot listen does.
    lastWords = (error as Error).message;
    stop('SIGTERM', 1);
  });

  let exitCode = 0;
  const delayMs = config.shutdownDelaySeconds * 1000;
  let stragglers: NodeJS.Timeout | undefined;
  /** Workers still running `ms` from now are killed. */
  const killStragglersIn = (ms: number): void => {
    clearTimeout(stragglers);
    stragglers = setTimeout(() => {
      killedStragglers = true;
      for (const worker of running()) worker.process.kill('SIGKILL');
    }, ms).unref();
  };
  let delaySkipped = false;
  /** Every worker drains now, without waiting out the rest of SHUTDOWN_DELAY_S. */
  const skipDelay = (): void => {
    delaySkipped = true;
    for (const worker of running()) tellWorker(worker, skipShutdownDelayMessage);
    killStragglersIn(SHUTDOWN_DRAIN_MS + STRAGGLER_GRACE_MS);
  };
  const stop = (signal: NodeJS.Signals, code = 0): void => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    schemaSetup.stop();
    if (code === 0) logger.info('shutting down', { signal, delayMs, drainMs: SHUTDOWN_DRAIN_MS, workers: running().length });
    if (running().length === 0) exit(code);
    // Straight to each worker's process: cluster's worker.kill() would disconnect it first and end its drain.
    // Each worker answers /readyz 503, serves on for SHUTDOWN_DELAY_S, then drains.
    for (const worker of running()) worker.process.kill(signal);
    // A stop for a failure keeps no load balancer waiting: /readyz already failed.
    // Ctrl-C at a terminal is a developer stopping their own run: no balancer to wait for.
    if (code !== 0 || interactiveStop(signal)) skipDelay();
    else killStragglersIn(delayMs + SHUTDOWN_DRAIN_MS + STRAGGLER_GRACE_MS);
  };
  // A second signal (an impatient operator) cuts the workers' delay short; the workers themselves
  // ignore it, since one Ctrl-C at a terminal reaches them both directly and through here.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!stopping) stop(signal);
    else if (!delaySkipped && running().length > 0) skipDelay();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // With HTTPS, SIGHUP reloads the certificates: each worker serves with its own copy.
  if (config.tls) process.on('SIGHUP', () => running().forEach((worker) => worker.process.kill('SIGHUP')));
  stopWhenDatabaseDies(opened, logger, () => stopping, () => stop('SIGTERM', 1));
}

/**
 * With HTTPS, one set of session ticket keys for every worker (TLS_TICKET_KEYS, or made for this
 * run): a client resumes its session on whichever worker its next connection reaches.
 */
function sharedTicketKeys(config: Config): Record<string, string> {
  if (config.tls === undefined) return {};
  return { TLS_TICKET_KEYS: (config.tls.ticketKeys ?? randomBytes(48)).toString('hex') };
}

/** What a worker needs to use the embedded database its primary started: its socket, as root. */
function embeddedDatabaseEnv(config: Config, database: ServiceDatabase): Record<string, string> {
  const socket = socketOf(database.db);
  if (config.embedded === undefined || socket === undefined) return {};
  return { DB_HOST: 'embedded', DB_SOCKET: socket, DB_USER: 'root', DB_PASSWORD: '' };
}
