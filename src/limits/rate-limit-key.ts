import type { IncomingMessage } from 'node:http';
import { clientAddress } from '../http/client-address.js';

/** Whose allowance a request spends under RATE_LIMIT: one string per client, prefixed by what kind of name it is. */
export type RateLimitKey = (req: IncomingMessage) => string;

/**
 * The one place the rate limit's client is named. Today it is the client address (the last hop of
 * X-Forwarded-For with TRUST_PROXY=1), as `ip:<address>`. Once bearer tokens name the caller, a
 * request that proved a principal is counted under the principal's name instead (`key:<name>`,
 * `sub:<subject>`, already prefixed), so one caller shares one allowance from any address.
 */
export function rateLimitKey(trustProxy: boolean): RateLimitKey {
  return (req) => `ip:${clientAddress(req, trustProxy)}`;
}
