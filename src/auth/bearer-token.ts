/**
 * The token of an `Authorization: Bearer <token>` header (the scheme in any case, RFC 7235);
 * undefined when there is no header, another scheme (Basic, say), or `Bearer` without a token.
 * What follows the scheme is returned as it is: a verifier refuses what is not a token.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const space = authorization.indexOf(' ');
  const scheme = space === -1 ? authorization : authorization.slice(0, space);
  if (scheme.length !== 6 || scheme.toLowerCase() !== 'bearer') return undefined;
  const token = space === -1 ? '' : authorization.slice(space + 1).trim();
  return token === '' ? undefined : token;
}
