/** Who a request's bearer token proved the caller to be. */
export interface Principal {
  /** Names the caller in the access log and keys its rate limit: `key:<name>` for an API key, `sub:<subject>` for a JWT. */
  readonly name: string;
  readonly scopes: ReadonlySet<string>;
}

/** The scopes a token may carry. */
export type Scope = 'users:read' | 'users:write' | 'events:read' | 'webhooks:admin';

/**
 * Turns a bearer token into its principal. Resolves undefined when the token is not of this
 * verifier's kind (an API key verifier given a JWT, say); rejects with InvalidTokenError when it
 * is of its kind but not valid (expired, wrong signature, wrong audience, unknown key, …).
 */
export type TokenVerifier = (token: string) => Promise<Principal | undefined>;

/** A token that is not valid; the message is for the log, never for the client. */
export class InvalidTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}
