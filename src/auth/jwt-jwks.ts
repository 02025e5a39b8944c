import { createRemoteJWKSet, customFetch, errors, type FetchImplementation, type JWTVerifyGetKey } from 'jose';
import { jwksLocation } from '../config/auth-settings.js';
import { InvalidTokenError } from './principal.js';
import { quoted } from './quoted.js';

/** A JWKS request not answered within this is abandoned, and the token waiting on it refused. */
export const JWKS_TIMEOUT_MS = 3_000;
/** After a fetch, a token with an unknown `kid` causes no refetch for this long: a flood of made-up kids costs the identity provider one request per 30 s. */
export const JWKS_COOLDOWN_MS = 30_000;
/** Fetched keys are used for this long; then the next token waits for a refetch, so a key the provider withdrew stops working within it. */
export const JWKS_MAX_AGE_MS = 10 * 60_000;

export interface JwksOptions {
  timeoutMs?: number;
  cooldownMs?: number;
}

/** The JWKS gave no key for a token: none has its kid, or the JWKS could not be fetched or read. */
export class JwksKeyUnresolved extends InvalidTokenError {}

/**
 * The keys published at JWT_JWKS_URL, as a key resolver for jose's jwtVerify. jose fetches them on
 * the first token, caches them, and refetches on an unknown `kid` at most once per cooldown; requests
 * arriving during a fetch wait for that one fetch. A JWKS that cannot be fetched or read resolves no
 * key, so no token passes; the JwksKeyUnresolved says why, for the log.
 */
export function jwksKeys(url: string, options: JwksOptions = {}): JWTVerifyGetKey {
  const jwks = createRemoteJWKSet(jwksUrl(url), {
    timeoutDuration: options.timeoutMs ?? JWKS_TIMEOUT_MS,
    cooldownDuration: options.cooldownMs ?? JWKS_COOLDOWN_MS,
    cacheMaxAge: JWKS_MAX_AGE_MS,
    [customFetch]: fetchStatus,
  });
  return async (header, token) => {
    try {
      return await jwks(header, token);
    } catch (error) {
      const kid = header.kid === undefined ? 'no kid' : `kid ${quoted(header.kid)}`;
      if (error instanceof errors.JWKSNoMatchingKey) throw new JwksKeyUnresolved(`JWT refused: the JWKS at ${url} has no ${header.alg} key with ${kid}`);
      if (error instanceof errors.JWKSMultipleMatchingKeys)
        throw new JwksKeyUnresolved(`JWT refused: the token has no kid, and several ${header.alg} keys of the JWKS at ${url} fit it`);
      throw new JwksKeyUnresolved(`JWT refused: the JWKS at ${url} is unavailable: ${reason(error)}`);
    }
  };
}

/** jose refuses any status but 200 without naming it; naming it tells a wrong URL (404) from an outage (503). */
const fetchStatus: FetchImplementation = async (url, init) => {
  const response = await fetch(url, init);
  if (response.status === 200) return response;
  await response.body?.cancel();
  throw new Error(`HTTP status ${response.status}`);
};

/** The error and, for a failed fetch, its cause (`fetch failed` alone does not say ECONNREFUSED). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

/** JWT_JWKS_URL as a URL, held to the rule the settings are (see jwksLocation). */
function jwksUrl(raw: string): URL {
  return new URL(jwksLocation(raw));
}
