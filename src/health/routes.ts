import type { Handler } from '../http/context.js';
import { errorBody, sendJson } from '../http/respond.js';
import type { Router } from '../http/router.js';

const alive = JSON.stringify({ status: 'ok' });
const ready = JSON.stringify({ status: 'ready' });
const notReady = errorBody('Database unavailable');

/** `/healthz`: the process answers. `/readyz`: the schema is in place and the users table answers now. */
export function registerHealthRoutes(router: Router<Handler>, isReady: () => Promise<boolean>): void {
  router.add('GET', '/healthz', ({ res }) => sendJson(res, 200, alive));
  router.add('GET', '/readyz', async ({ res }) => {
    if (await isReady()) sendJson(res, 200, ready);
    else sendJson(res, 503, notReady);
  });
}
