import { errors, jwtVerify, type JWTClaimVerificationOptions, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ASYMMETRIC_ALGORITHMS, type AsymmetricAlgorithm, type PublicKey } from './jwt-keys.js';
import { JwksKeyUnresolved } from './jwt-jwks.js';
import { InvalidTokenError } from './principal.js';

/** Checks an asymmetric token and its claims; resolves its claims or rejects. */
export type PublicKeyVerification = (token: string, alg: AsymmetricAlgorithm, kid: string | undefined) => Promise<JWTPayload>;

/**
 * Which public key checks a token. With only PEM keys or only a JWKS, that source. With both, a token
 * with a `kid` goes to the JWKS first: when the JWKS has a key of that kid, that key decides; when it
 * has none (or cannot be fetched), the PEM keys are tried. A token without `kid` is checked against
 * the PEM keys. The PEM keys of the token's alg are tried in file order; the first whose signature
 * matches decides (an expired token stays refused, whichever key signed it).
 */
export function publicKeyVerification(
  pemKeys: readonly PublicKey[],
  jwks: JWTVerifyGetKey | undefined,
  claims: JWTClaimVerificationOptions,
): PublicKeyVerification {
  const jwksOptions = { ...claims, algorithms: [...ASYMMETRIC_ALGORITHMS] };

  const withPem = async (token: string, alg: AsymmetricAlgorithm, jwksFailure?: string): Promise<JWTPayload> => {
    const candidates = pemKeys.filter((key) => key.algorithms.includes(alg));
    for (const { key, algorithms } of candidates) {
      try {
        return (await jwtVerify(token, key, { ...claims, algorithms: [...algorithms] })).payload;
      } catch (error) {
        if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw error;
      }
    }
    const pem =
      candidates.length === 0
        ? `no key of JWT_PUBLIC_KEY_FILE is for ${alg}`
        : `the signature matches none of the ${candidates.length} ${alg} key(s) of JWT_PUBLIC_KEY_FILE`;
    throw new InvalidTokenError(jwksFailure === undefined ? `JWT refused: ${pem}` : `${jwksFailure}; and ${pem}`);
  };

  if (jwks === undefined) return (token, alg) => withPem(token, alg);
  if (pemKeys.length === 0) return async (token) => (await jwtVerify(token, jwks, jwksOptions)).payload;
  return async (token, alg, kid) => {
    if (kid === undefined) return withPem(token, alg);
    try {
      return (await jwtVerify(token, jwks, jwksOptions)).payload;
    } catch (error) {
      if (!(error instanceof JwksKeyUnresolved)) throw error;
      return withPem(token, alg, error.message);
    }
  };
}
