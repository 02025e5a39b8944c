import type { Config } from './environment.js';

/**
 * Why a production start (NODE_ENV=production, as `npm run start:prod` and the Docker image set it)
 * must not go on, or undefined. A generated ACCESS_PASSWORD differs on every instance and worker, so
 * behind a balancer the list and its signed cursors would work on one instance at random.
 */
export function productionRefusal(config: Pick<Config, 'accessPasswordGenerated'>, env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_ENV !== 'production' || !config.accessPasswordGenerated) return undefined;
  return 'ACCESS_PASSWORD must be set when NODE_ENV=production (a generated one would differ on every instance and worker)';
}
