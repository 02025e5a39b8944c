import type { Handler } from '../http/context.js';
import { sendJson } from '../http/respond.js';
import type { Router } from '../http/router.js';

/** Serialised once: the same few bytes for every request. */
const index = JSON.stringify({ name: 'User Service', docs: '/apidocs', openapi: '/openapi.json' });

/**
 * `GET /` (and HEAD): where this server's documentation is, for a person or a client that opens
 * the bare address, instead of a 404. Unlike the docs pages it is an API answer (JSON, CORS,
 * X-Request-Id), documented in openapi.json as getIndex.
 */
export function registerIndexRoute(router: Router<Handler>): void {
  router.add('GET', '/', ({ res }) => sendJson(res, 200, index));
}
