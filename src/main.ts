import cluster from 'node:cluster';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './log.js';
import { runInstance } from './supervisor/instance.js';
import { runPrimary } from './supervisor/primary.js';

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

// WORKERS=1 forks nothing: this process serves, as it always has.
if (config.workers > 1 && cluster.isPrimary) await runPrimary(config, logger);
else await runInstance(config, logger);
