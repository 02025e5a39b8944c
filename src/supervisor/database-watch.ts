import type { ServiceDatabase } from '../embedded-db/service-database.js';
import type { Logger } from '../log/logger.js';

/**
 * Without the database it started itself the service cannot recover: when that server stops on its
 * own (not while the service is stopping), this says so and calls `stop`, which exits non-zero.
 */
export function stopWhenDatabaseDies(database: ServiceDatabase, logger: Logger, stopping: () => boolean, stop: () => void): void {
  void database.exited?.then(() => {
    if (stopping()) return;
    logger.warn('the embedded database stopped unexpectedly', { db: database.shown, log: database.logFile });
    stop();
  });
}
