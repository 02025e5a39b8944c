import cluster from 'node:cluster';
import { checkTokenSources } from '../auth/token-sources.js';
import { checkTlsFiles } from '../tls/check-files.js';
import { ConfigError, entryDefaults, loadConfig, type Config } from '../config/environment.js';
import { productionRefusal } from '../config/production.js';
import { lookAlikeSettings } from '../config/setting-names.js';
import { createLogger } from '../log/logger.js';
import { listenProblem } from '../startup/listen-check.js';
import { failStart, runInstance } from '../supervisor/instance.js';
import { runPrimary } from '../supervisor/primary.js';

let config: Config;
try {
  config = loadConfig(process.env, entryDefaults());
  checkTokenSources(config.auth);
  checkTlsFiles(config.tls);
  const refusal = productionRefusal(config, process.env);
  if (refusal !== undefined) throw new ConfigError(refusal);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  failStart(`Invalid configuration: ${error.message}`);
}

// Before anything starts (the embedded database, the workers): a port that cannot be listened on. A worker's primary checked already.
if (cluster.isPrimary) {
  const problem = await listenProblem(config);
  if (problem !== undefined) failStart(`Cannot start: ${problem}`);
}

const logger = createLogger(undefined, config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'));
if (cluster.isPrimary) {
  for (const [name, setting] of lookAlikeSettings(process.env)) logger.warn(`${name} is not a setting of this service; did you mean ${setting}?`, { variable: name, closest: setting });
}

// WORKERS=1 forks nothing: this process serves.
if (config.workers > 1 && cluster.isPrimary) await runPrimary(config, logger);
else await runInstance(config, logger);
