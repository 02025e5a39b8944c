import type { IncomingMessage, ServerResponse } from 'node:http';

/** Every method the API serves on some path: what a preflight to any API path allows. */
export const ALL_API_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * The response headers a page on another origin may read, beyond the CORS-safelisted ones. The one
 * list every API response names in Access-Control-Expose-Headers. RATE_LIMIT's two are named even
 * while it is off: naming an absent header costs nothing, and the list stays one constant.
 */
export const EXPOSED_HEADERS =
  'Location, ETag, Link, Retry-After, X-Request-Id, X-Total-Count, Preference-Applied, RateLimit-Policy, RateLimit, WWW-Authenticate, Idempotent-Replayed, traceparent';

const PREFLIGHT_MAX_AGE_SECONDS = '86400';
/** Allowed when a preflight names no headers: a JSON body's type, and a bearer token (AUTH=writes or all). */
const DEFAULT_ALLOWED_HEADERS = 'Content-Type, Authorization';
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * Answers a CORS preflight: any origin, the methods the browser may try (`corsMethods`), and the
 * request headers it asked for. `Allow` keeps naming the methods of the path itself.
 */
export function sendPreflight(req: IncomingMessage, res: ServerResponse, corsMethods: string, allow: string): void {
  const requested = req.headers['access-control-request-headers'];
  const allowHeaders = requested && HEADER_LIST.test(requested.trim()) ? requested.trim() : DEFAULT_ALLOWED_HEADERS;
  res.writeHead(204, {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': corsMethods,
    'Access-Control-Allow-Headers': allowHeaders,
    'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    Vary: 'Access-Control-Request-Headers',
    Allow: allow,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end();
}
