import { createServer } from 'node:net';
import type { Config } from '../config/environment.js';

/**
 * Binds and at once releases each port the service will listen on (PORT, and METRICS_PORT when
 * it is served), so that a port in use or a HOST this machine cannot listen on stops the start
 * before anything has started: not after the embedded database has started and stopped again.
 * Resolves to the reason, naming the setting, or undefined when every port could be bound. The
 * real listen can still fail (the port taken meanwhile); that failure is reported as it is.
 */
export async function listenProblem(config: Pick<Config, 'port' | 'host' | 'metrics' | 'metricsPort'>): Promise<string | undefined> {
  const ports: Array<[string, number]> = [['PORT', config.port]];
  if (config.metrics && config.metricsPort !== undefined) ports.push(['METRICS_PORT', config.metricsPort]);
  for (const [name, port] of ports) {
    const problem = await bindProblem(port, config.host);
    if (problem !== undefined) return listenFailure(problem, name, port, config.host);
  }
  return undefined;
}

function bindProblem(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/** A failed listen in words naming the setting to change; the system's own message follows in parentheses. */
export function listenFailure(error: NodeJS.ErrnoException, name: string, port: number, host: string): string {
  const where = `${name} ${port} on HOST ${host}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${where} is in use by another process (${error.message})`;
    case 'EACCES':
      return `${where} needs privileges this process lacks: ports below 1024 usually do (${error.message})`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine (${error.message})`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} cannot be resolved to an address (${error.message})`;
    default:
      return `${where} cannot be listened on (${error.message})`;
  }
}
