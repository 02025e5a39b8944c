import type { BearerAuth } from '../../auth/bearer-auth.js';
import { requireScope } from '../../auth/bearer-auth.js';
import { bearerToken } from '../../auth/bearer-token.js';
import type { Scope } from '../../auth/principal.js';
import type { AuthMode } from '../../config/environment.js';
import { setAuthenticatedAs } from '../../http/authenticated-as.js';
import type { Handler } from '../../http/context.js';

/**
 * Who may do what to users under AUTH, applied where the routes are registered: each wrapper
 * checks the bearer token before the handler runs, so a 401 or 403 comes before the body is
 * read or validated and before an unknown id's 404 (a refusal reveals nothing about a user).
 *
 * | AUTH   | create, update, delete | read one (and HEAD) | list                                  |
 * |--------|------------------------|---------------------|---------------------------------------|
 * | off    | open                   | open                | pwd (the contract)                    |
 * | writes | users:write            | open                | pwd (the contract)                    |
 * | all    | users:write            | users:read          | a bearer token with users:read, or pwd |
 */
export interface UserAccess {
  /** Creating, updating (PUT, PATCH) and deleting a user. */
  write(handler: Handler): Handler;
  /** Reading one user. */
  readOne(handler: Handler): Handler;
  /**
   * The list, which the contract protects with `pwd`. With AUTH=all a request carrying a bearer
   * token is judged by the token alone: `pwd` is then neither compared nor counted, and the
   * token must be valid and have users:read, whatever `pwd` says. A client that sends a token
   * means it, so a bad or revoked token is reported as such (401 invalid_token, 403) instead of
   * being papered over by a password; nor can one client's password guessing (429 by address)
   * hold up a client with a good token behind the same address. Without a token, `pwd` works
   * exactly as the contract says, its 429 and 401 included.
   */
  list(byPassword: Handler, byToken: Handler): Handler;
}

/** AUTH=off: every handler as it is. */
export const openAccess: UserAccess = {
  write: (handler) => handler,
  readOne: (handler) => handler,
  list: (byPassword) => byPassword,
};

export function userAccess(mode: AuthMode, auth: BearerAuth): UserAccess {
  if (mode === 'off') return openAccess;
  const write = needing(auth, 'users:write');
  if (mode === 'writes') return { ...openAccess, write };
  const read = needing(auth, 'users:read');
  return {
    write,
    readOne: read,
    list: (byPassword, byToken) => {
      const readByToken = read(byToken);
      return (ctx) => (bearerToken(ctx.req.headers.authorization) === undefined ? byPassword(ctx) : readByToken(ctx));
    },
  };
}

/** The handler, behind a bearer token with `scope`; the access line names the token's principal, also when it lacks the scope. */
export function needing(auth: BearerAuth, scope: Scope): (handler: Handler) => Handler {
  return (handler) => async (ctx) => {
    const principal = await auth.principalOf(ctx.req, ctx.requestId);
    setAuthenticatedAs(ctx.res, principal.name);
    requireScope(principal, scope);
    return handler(ctx);
  };
}
