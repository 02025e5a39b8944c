import type { AuthSettings } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { certificateKey } from './api-key-file.js';
import { apiKeyVerifier } from './api-key-verifier.js';
import { BearerAuth } from './bearer-auth.js';
import { ReloadingApiKeys } from './api-keys-reload.js';
import { jwtVerifier } from './jwt-verifier.js';
import { InvalidTokenError, type Principal, type TokenVerifier } from './principal.js';

/**
 * The verifiers AUTH's settings call for, cheapest first: API keys are told by their prefix
 * without any parsing. Reading API_KEYS_FILE happens here, so AUTH=off never touches it.
 */
export function tokenVerifiers(settings: AuthSettings, logger: Logger, keys = apiKeysOf(settings, logger)): TokenVerifier[] {
  const verifiers: TokenVerifier[] = [];
  if (keys !== undefined) verifiers.push(apiKeyVerifier(keys));
  if (settings.jwt !== undefined) verifiers.push(jwtVerifier(settings.jwt));
  return verifiers;
}

/**
 * Who a request proves itself to be under AUTH: its bearer token, or without one its verified
 * client certificate named by a `cert:` line of API_KEYS_FILE. Undefined with AUTH=off.
 */
export function bearerAuth(settings: AuthSettings, logger: Logger): BearerAuth | undefined {
  if (settings.mode === 'off') return undefined;
  const keys = apiKeysOf(settings, logger);
  const certificate = keys && (async (commonName: string) => (await keys.current()).get(certificateKey(commonName))?.principal);
  return new BearerAuth(anyVerifier(tokenVerifiers(settings, logger, keys)), logger, certificate);
}

function apiKeysOf(settings: AuthSettings, logger: Logger): ReloadingApiKeys | undefined {
  return settings.apiKeysFile === undefined ? undefined : new ReloadingApiKeys(settings.apiKeysFile, logger);
}

/** RFC 6750's b64token: what a bearer token may be made of. Anything else is refused before any verifier sees it. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Far above any API key or sensible JWT; a longer token is refused without being parsed or hashed. */
const MAX_TOKEN_LENGTH = 8192;

/**
 * One verifier for them all: the first that knows the token's kind decides. A token no verifier
 * claims is not valid: rejects with InvalidTokenError, as a verifier does for a bad token of its kind.
 */
export function anyVerifier(verifiers: readonly TokenVerifier[]): (token: string) => Promise<Principal> {
  return async (token) => {
    if (token.length <= MAX_TOKEN_LENGTH && B64TOKEN.test(token)) {
      for (const verify of verifiers) {
        const principal = await verify(token);
        if (principal !== undefined) return principal;
      }
    }
    throw new InvalidTokenError('no verifier knows this kind of token');
  };
}
