import type { BearerAuth } from '../../auth/bearer-auth.js';
import { needing } from '../../auth/scope-guard.js';
import { bearerToken } from '../../auth/bearer-token.js';
import type { Principal } from '../../auth/principal.js';
import type { AuthMode } from '../../config/environment.js';
import { HttpError } from '../../errors/http-error.js';
import { setAuthenticatedAs } from '../../http/authenticated-as.js';
import type { Handler } from '../../http/context.js';
import { singlePassword } from './password.js';

/**
 * Who may do what to users under AUTH, applied where the routes are registered: each wrapper
 * checks the bearer token before the handler runs, so a 401 or 403 comes before the body is
 * read or validated and before an unknown id's 404 (a refusal reveals nothing about a user).
 *
 * | AUTH   | create, update, delete | read one (and HEAD) | list                                   | event stream                                   |
 * |--------|------------------------|---------------------|----------------------------------------|------------------------------------------------|
 * | off    | open                   | open                | pwd (the contract)                     | pwd                                            |
 * | writes | users:write            | open                | pwd (the contract)                     | a bearer token with events:read, or pwd        |
 * | all    | users:write            | users:read          | a bearer token with users:read, or pwd | a token with users:read or events:read, or pwd |
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
  /**
   * The change-event stream: let in as the list is, and also, with AUTH on, by a bearer token with
   * events:read (an integrator that follows changes without the list's password). With AUTH=all a
   * token is judged alone, as on the list: without either scope it is 403 naming users:read, as
   * before events:read let in. With AUTH=writes a token that does not let in (refused, or without
   * events:read) leaves it to `pwd`, exactly as when tokens were not looked at here; only a fault
   * while checking it (no refusal: a 500), with no `pwd` to fall back on, is answered as that fault.
   */
  events(byPassword: Handler, byToken: Handler): Handler;
}

/** AUTH=off: every handler as it is. */
export const openAccess: UserAccess = {
  write: (handler) => handler,
  readOne: (handler) => handler,
  list: (byPassword) => byPassword,
  events: (byPassword) => byPassword,
};

export function userAccess(mode: AuthMode, auth: BearerAuth): UserAccess {
  if (mode === 'off') return openAccess;
  const write = needing(auth, 'users:write');
  if (mode === 'writes') return { ...openAccess, write, events: (byPassword, byToken) => eventsReadOrPassword(auth, byPassword, byToken) };
  const read = needing(auth, 'users:read');
  const readEvents = needing(auth, 'users:read', 'events:read');
  const tokenOrPassword = (byPassword: Handler, byToken: Handler): Handler => (ctx) =>
    bearerToken(ctx.req.headers.authorization) === undefined ? byPassword(ctx) : byToken(ctx);
  return {
    write,
    readOne: read,
    list: (byPassword, byToken) => tokenOrPassword(byPassword, read(byToken)),
    events: (byPassword, byToken) => tokenOrPassword(byPassword, readEvents(byToken)),
  };
}

/**
 * AUTH=writes: the stream by a bearer token with events:read, else by `pwd` as the contract has it
 * (see UserAccess.events).
 */
function eventsReadOrPassword(auth: BearerAuth, byPassword: Handler, byToken: Handler): Handler {
  return async (ctx) => {
    if (bearerToken(ctx.req.headers.authorization) === undefined) return byPassword(ctx);
    let principal: Principal | undefined;
    try {
      principal = await auth.principalOf(ctx.req, ctx.requestId);
    } catch (error) {
      if (!(error instanceof HttpError) && singlePassword(ctx.query) === undefined) throw error;
    }
    if (principal === undefined || !principal.scopes.has('events:read')) return byPassword(ctx);
    setAuthenticatedAs(ctx.res, principal.name);
    return byToken(ctx);
  };
}
