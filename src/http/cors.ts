import type { IncomingMessage, ServerResponse } from 'node:http';

export const ALL_API_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';

/** Response headers a page from another origin may read (`Access-Control-Expose-Headers`). */
export const EXPOSED_HEADERS = 'Retry-After, X-Request-Id';

const PREFLIGHT_MAX_AGE_SECONDS = '86400';
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * Answers a CORS preflight: any origin, the methods of the path (or every API method when the
 * path has no route), and the request headers the browser asked for.
 */
export function sendPreflight(req: IncomingMessage, res: ServerResponse, methods: string): void {
  const requested = req.headers['access-control-request-headers'];
  const allowHeaders = requested && HEADER_LIST.test(requested.trim()) ? requested.trim() : 'Content-Type';
  res.writeHead(204, {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': methods,
    'Access-Control-Allow-Headers': allowHeaders,
    'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    Vary: 'Access-Control-Request-Headers',
    Allow: methods,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end();
}
