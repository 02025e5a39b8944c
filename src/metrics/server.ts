import type { AddressInfo } from 'node:net';
import type { Handler } from '../http/context.js';
import { Router } from '../http/router.js';
import { createHttpServer } from '../http/server.js';
import type { Logger } from '../log/logger.js';
import type { Snapshot } from './registry.js';
import { registerMetricsRoute } from './route.js';

export interface MetricsServer {
  address: AddressInfo;
  close(): Promise<void>;
}

/**
 * `/metrics` on a port of its own (METRICS_PORT), so the figures can stay off the public
 * interface: the same dispatcher as the API (JSON errors, request ids, limits), one route.
 */
export function startMetricsServer(read: () => Promise<Snapshot>, logger: Logger, port: number, host: string): Promise<MetricsServer> {
  const router = new Router<Handler>();
  registerMetricsRoute(router, read);
  const { server } = createHttpServer({ router, logger });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        address: server.address() as AddressInfo,
        close: () =>
          new Promise<void>((closed) => {
            server.close(() => closed());
            server.closeAllConnections();
          }),
      });
    });
  });
}
