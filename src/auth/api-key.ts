import { createHash, randomBytes } from 'node:crypto';

/** Every API key starts with this: a verifier tells an API key from a JWT by it, and a leaked key is easy to spot. */
export const API_KEY_PREFIX = 'usk_';

/** 32 random bytes: 256 bits, far beyond any guessing, written as 43 base64url characters. */
const KEY_BYTES = 32;
const API_KEY_SHAPE = /^usk_[A-Za-z0-9_-]{43}$/;

/** A new API key from the CSPRNG. */
export function newApiKey(): string {
  return API_KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url');
}

/** Whether a bearer token claims to be an API key (it may still be malformed). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** Whether an API key has the exact shape newApiKey gives. */
export function wellFormedApiKey(token: string): boolean {
  return API_KEY_SHAPE.test(token);
}

/**
 * What API_KEYS_FILE keeps of a key instead of the key: its SHA-256. A plain, unsalted, fast hash
 * is right here, unlike for passwords: the key is 256 random bits, so there is no dictionary to
 * try and nothing a salt or a slow hash would protect; a slow hash would only cost every request.
 */
export function apiKeyDigest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}
