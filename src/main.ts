import cluster from 'node:cluster';
import { ConfigError, entryDefaults, loadConfig, type Config } from './config/environment.js';
import { createLogger } from './log/logger.js';
import { failStart, runInstance } from './supervisor/instance.js';
import { runPrimary } from './supervisor/primary.js';

let config: Config;
try {
  config = loadConfig(process.env, entryDefaults());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  failStart(`Invalid configuration: ${error.message}`);
}

const logger = createLogger(undefined, config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'));

// WORKERS=1 forks nothing: this process serves.
if (config.workers > 1 && cluster.isPrimary) await runPrimary(config, logger);
else await runInstance(config, logger);
