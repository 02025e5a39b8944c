/**
 * The service exactly as src/commands/start.ts starts it, but with a logger that drops every line: run with
 * `--service-log off` to see what per-request logging costs.
 */
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/environment.js';
import { createLogger } from '../src/log/logger.js';

const config = loadConfig();
const app = createApp({
  db: config.db,
  accessPassword: config.accessPassword,
  logger: createLogger(() => {}),
  ...(config.metrics ? { metrics: { onApiPort: true } } : {}),
});
await app.listen(config.port, config.host);
void app.prepareSchema();
const stop = (): void => {
  app.close(10_000).then(() => process.exit(0), () => process.exit(1));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
