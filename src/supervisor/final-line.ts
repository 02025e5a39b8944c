import { socketOf } from '../config/db-servers.js';
import type { Config } from '../config/environment.js';
import type { Logger } from '../log/logger.js';

/**
 * The last line of a stop, once everything is closed: `shutdown complete` from the process that owns
 * the service (saying that the embedded database stopped when it ran one), `worker stopped` from each
 * worker of WORKERS=N; with the exit code when it is not 0.
 */
export function logFinalLine(logger: Logger, config: Pick<Config, 'db' | 'embedded'>, { worker, exitCode }: { worker: boolean; exitCode: number }): void {
  const ranEmbedded = !worker && config.embedded !== undefined && socketOf(config.db) === undefined;
  logger.info(worker ? 'worker stopped' : 'shutdown complete', {
    ...(worker ? { pid: process.pid } : {}),
    ...(ranEmbedded ? { embeddedDatabase: 'stopped' } : {}),
    ...(exitCode === 0 ? {} : { exitCode }),
  });
}
