import { timingSafeEqual } from 'node:crypto';
import { apiKeyDigest, looksLikeApiKey, wellFormedApiKey } from './api-key.js';
import type { ApiKeySet } from './api-key-file.js';
import { InvalidTokenError, type TokenVerifier } from './principal.js';

/**
 * API keys as bearer tokens. A token without the key prefix is not this verifier's (a JWT, say);
 * one with it must be a key of the file, else it is refused. The key is found by its SHA-256, and
 * the stored digest is then compared in constant time: the lookup's timing depends only on the
 * hash, which tells nothing about any stored key.
 */
export function apiKeyVerifier(keys: { current(): ApiKeySet | Promise<ApiKeySet> }): TokenVerifier {
  return async (token) => {
    if (!looksLikeApiKey(token)) return undefined;
    if (!wellFormedApiKey(token)) throw new InvalidTokenError('not a well-formed API key');
    const digest = apiKeyDigest(token);
    const entry = (await keys.current()).get(digest.toString('hex'));
    if (entry === undefined || !timingSafeEqual(entry.digest, digest)) throw new InvalidTokenError('unknown or revoked API key');
    return entry.principal;
  };
}
