import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.js';
import { bearerToken } from '../auth/bearer-token.js';

/** Whose allowance a request spends under RATE_LIMIT: one string per client, prefixed by what kind of name it is. */
export type RateLimitKey = (req: IncomingMessage, res: ServerResponse, client: string) => string | Promise<string>;

/** The principal a request's bearer token proves (see BearerAuth.principalOf); rejects for a token that proves none. */
export type PrincipalOf = (req: IncomingMessage, res: ServerResponse) => Promise<Principal>;

/**
 * The one place the rate limit's client is named: the client address the dispatcher read (the
 * last hop of X-Forwarded-For with TRUST_PROXY=1), as `ip:<address>`; with AUTH on, a request whose bearer
 * token is valid counts under its principal's name instead (`key:<name>`, `sub:<subject>`), so one
 * caller shares one allowance from any address. A token that is not valid counts by address: the
 * route refuses it anyway.
 */
export function rateLimitKey(principalOf?: PrincipalOf): RateLimitKey {
  return (req, res, client) => {
    const byAddress = `ip:${client}`;
    if (principalOf === undefined || bearerToken(req.headers.authorization) === undefined) return byAddress;
    return principalOf(req, res).then(
      (principal) => principal.name,
      () => byAddress,
    );
  };
}
