import type { BearerAuth } from '../../../../auth/bearer-auth.js';
import { HttpError } from '../../../../errors/http-error.js';
import type { Handler } from '../../../../http/context.js';
import { needing } from '../../../../auth/scope-guard.js';

const authOff = new HttpError(403, 'Managing webhook endpoints needs AUTH=writes or AUTH=all and a bearer token with the scope webhooks:admin');

/**
 * Who may manage webhook endpoints: a bearer token with `webhooks:admin` (401 without a valid one,
 * 403 without the scope), checked before the body is read or the endpoint looked up. With AUTH=off
 * nobody may: an endpoint's secret is not for whoever can reach the port.
 */
export function adminAccess(bearer: BearerAuth | undefined): (handler: Handler) => Handler {
  if (bearer === undefined) {
    return () => () => {
      throw authOff;
    };
  }
  return needing(bearer, 'webhooks:admin');
}
