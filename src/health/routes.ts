import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import type { Handler } from '../http/context.js';
import { sendJson } from '../http/respond.js';
import type { Router } from '../http/router.js';

const alive = JSON.stringify({ status: 'ok' });
const ready = JSON.stringify({ status: 'ready' });
const notReady = new HttpError(503, messages.databaseUnavailable);
const shuttingDown = new HttpError(503, messages.shuttingDown);

export interface Readiness {
  /** The process is stopping: it says so, whatever the database. */
  stopping(): boolean;
  /** The schema is in place and the users table answers now. */
  answers(): Promise<boolean>;
}

/**
 * `/healthz`: the process answers. `/readyz`: the process is not stopping, the schema is in place
 * and the users table answers now.
 */
export function registerHealthRoutes(router: Router<Handler>, readiness: Readiness): void {
  router.add('GET', '/healthz', ({ res }) => sendJson(res, 200, alive));
  router.add('GET', '/readyz', async ({ res }) => {
    if (readiness.stopping()) throw shuttingDown;
    if (!(await readiness.answers())) throw notReady;
    sendJson(res, 200, ready);
  });
}
