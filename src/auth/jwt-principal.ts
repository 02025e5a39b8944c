import type { JWTPayload } from 'jose';
import { InvalidTokenError, type Principal } from './principal.js';

/**
 * The principal a verified token's claims name: `sub:<sub>`, with the scopes of `scope` (a
 * space-separated string, RFC 8693) and `scp` (an array of strings, or a space-separated string, as
 * Azure AD and Okta write it). A token without a `sub` is refused: the name keys the caller's rate
 * limit and its lines in the access log, and a shared anonymous name would let every such caller
 * pass for every other. A claim of the wrong type is refused rather than read as no scopes.
 */
export function principalOf(claims: JWTPayload): Principal {
  const { sub } = claims;
  if (typeof sub !== 'string' || sub === '') throw new InvalidTokenError('JWT refused: no "sub" claim naming the caller');
  return { name: `sub:${sub}`, scopes: new Set([...scopeList(claims, 'scope'), ...scopeList(claims, 'scp')]) };
}

function scopeList(claims: JWTPayload, claim: 'scope' | 'scp'): string[] {
  const value = claims[claim];
  if (value === undefined) return [];
  if (typeof value === 'string') return value.split(' ').filter((scope) => scope !== '');
  if (claim === 'scp' && Array.isArray(value) && value.every((scope) => typeof scope === 'string')) return value as string[];
  throw new InvalidTokenError(
    claim === 'scp' ? 'JWT refused: the "scp" claim is neither a string nor an array of strings' : 'JWT refused: the "scope" claim is not a string',
  );
}
