import type { Handler } from '../http/context.js';
import type { Router } from '../http/router.js';
import { EXPOSITION_CONTENT_TYPE, exposition } from './exposition.js';
import type { Snapshot } from './registry.js';

/** `GET /metrics`: the figures `read` returns (this process's, or the whole cluster's), in Prometheus's text format. */
export function registerMetricsRoute(router: Router<Handler>, read: () => Promise<Snapshot>): void {
  router.add('GET', '/metrics', async ({ res }) => {
    const body = exposition(await read());
    res.writeHead(200, {
      'Content-Type': EXPOSITION_CONTENT_TYPE,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(body);
  });
}
