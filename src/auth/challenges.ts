import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import type { Scope } from './principal.js';
import { scopes } from './scopes.js';

/** The challenges of RFC 6750: what a client is told when its bearer token does not let it in. */
const REALM = 'Bearer realm="users"';

/** No bearer token at all: the challenge carries no error code (RFC 6750 3.1). */
export const authenticationRequired = new HttpError(401, messages.authenticationRequired, { 'WWW-Authenticate': REALM });

export const invalidToken = new HttpError(401, messages.invalidToken, { 'WWW-Authenticate': `${REALM}, error="invalid_token"` });

/** A valid token without the scope, by the scope it lacks; the challenge names it. */
export const insufficientScope: Readonly<Record<Scope, HttpError>> = Object.fromEntries(
  scopes.map((scope) => [
    scope,
    new HttpError(403, messages.insufficientScope, { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"` }),
  ]),
) as Record<Scope, HttpError>;
