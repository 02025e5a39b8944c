import type { Handler } from '../http/context.js';
import { setAuthenticatedAs } from '../http/authenticated-as.js';
import { requireScope, type BearerAuth } from './bearer-auth.js';
import type { Scope } from './principal.js';

/**
 * The handler, behind a bearer token with `scope` (or `alternative`, when given); without either
 * it is 403 naming `scope`. The access line names the token's principal, also when it lacks the scope.
 */
export function needing(auth: BearerAuth, scope: Scope, alternative?: Scope): (handler: Handler) => Handler {
  return (handler) => async (ctx) => {
    const principal = await auth.principalOf(ctx.req, ctx.requestId);
    setAuthenticatedAs(ctx.res, principal.name);
    if (alternative === undefined || !principal.scopes.has(alternative)) requireScope(principal, scope);
    return handler(ctx);
  };
}
