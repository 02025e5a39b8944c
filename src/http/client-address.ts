import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log/logger.js';

const MAX_ADDRESS_LENGTH = 64;

/**
 * The address a request came from. Behind a reverse proxy (`trustProxy`) it is the last hop of
 * `X-Forwarded-For`, the one the proxy itself appended; otherwise that header is ignored, since
 * any client can write it.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const header = req.headers['x-forwarded-for'];
    // Node joins repeated X-Forwarded-For lines with ", " already; the array form is for completeness.
    const forwarded = Array.isArray(header) ? header.join(',') : header;
    if (forwarded !== undefined) {
      const last = forwarded.slice(forwarded.lastIndexOf(',') + 1).trim();
      // An address is at most 45 characters (IPv6 with an IPv4 tail); anything longer is cut, so
      // that the addresses remembered for password guessing stay small whatever a header holds.
      if (last !== '') return last.length > MAX_ADDRESS_LENGTH ? last.slice(0, MAX_ADDRESS_LENGTH) : last;
    }
  }
  return req.socket.remoteAddress ?? '';
}

/**
 * clientAddress with TRUST_PROXY as configured, for every use of it in one process (the guessing
 * limit, RATE_LIMIT, the access line). With TRUST_PROXY=0 the first request that carries
 * X-Forwarded-For is worth one warning: a proxy in front makes every client look like the proxy,
 * so all share one guessing limit and one rate allowance. Said once per process, never per request.
 */
export function clientAddressOf(trustProxy: boolean, logger: Logger): (req: IncomingMessage) => string {
  if (trustProxy) return (req) => clientAddress(req, true);
  let warned = false;
  return (req) => {
    if (!warned && req.headers['x-forwarded-for'] !== undefined) {
      warned = true;
      logger.warn(
        'X-Forwarded-For is ignored: with TRUST_PROXY=0 each client is known by the address it connects from; behind a reverse proxy that sets the header, set TRUST_PROXY=1',
        { from: req.socket.remoteAddress },
      );
    }
    return req.socket.remoteAddress ?? '';
  };
}
