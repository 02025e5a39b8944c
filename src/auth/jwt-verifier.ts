import { decodeProtectedHeader, errors, jwtVerify, type CryptoKey, type JWTClaimVerificationOptions, type JWTPayload } from 'jose';
import { ConfigError, type JwtSettings } from '../config/environment.js';
import { ASYMMETRIC_ALGORITHMS, loadPublicKeys, type AsymmetricAlgorithm } from './jwt-keys.js';
import { jwksKeys } from './jwt-jwks.js';
import { principalOf } from './jwt-principal.js';
import { publicKeyVerification } from './jwt-public-keys.js';
import { InvalidTokenError, type TokenVerifier } from './principal.js';
import { quoted } from './quoted.js';

/** How far (s) `exp` and `nbf` may be off, for clocks that disagree a little with the issuer's. */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** RFC 7518 §3.2: an HS256 key must be at least as long as the hash, 256 bits. */
export const MIN_SECRET_BYTES = 32;

/** Three dot-separated base64url parts; the signature may be empty, so that an `alg: none` token is claimed and refused. */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

export interface JwtVerifierOptions {
  /** JWKS fetch timeout (ms); JWKS_TIMEOUT_MS unless a test needs it shorter. */
  jwksTimeoutMs?: number;
  /** How long (ms) after a JWKS fetch an unknown kid causes no refetch; JWKS_COOLDOWN_MS unless a test needs it shorter. */
  jwksCooldownMs?: number;
}

/**
 * Verifies JWTs with jose. A token that is not shaped like a JWT resolves undefined, for another
 * verifier to claim; every JWT that is not valid is refused with an InvalidTokenError saying why.
 *
 * HS256 tokens are checked against JWT_SECRET only, and RS256, PS256, ES256 and EdDSA tokens against
 * the public keys only (JWT_PUBLIC_KEY_FILE, JWT_JWKS_URL), so that a public key can never serve as
 * an HMAC secret; any other `alg`, `none` included, is refused. Keys a token names itself (`jwk`,
 * `jku`, `x5u`) are never used. A ConfigError of one line names the setting that cannot be used.
 */
export function jwtVerifier(settings: JwtSettings, options: JwtVerifierOptions = {}): TokenVerifier {
  const claims: JWTClaimVerificationOptions = {
    issuer: settings.issuer,
    audience: settings.audience,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    // A token without `exp` would be valid forever: a leaked one could never be cut off. Without `sub`
    // it names no caller (see principalOf).
    requiredClaims: ['exp', 'sub'],
  };
  const secret = settings.secret === undefined ? undefined : hmacKey(settings.secret);
  const pemKeys = settings.publicKeyFile === undefined ? [] : loadPublicKeys(settings.publicKeyFile);
  const jwksOptions = { timeoutMs: options.jwksTimeoutMs, cooldownMs: options.jwksCooldownMs };
  const jwks = settings.jwksUrl === undefined ? undefined : jwksKeys(settings.jwksUrl, jwksOptions);
  if (secret === undefined && pemKeys.length === 0 && jwks === undefined)
    throw new ConfigError('JWT verification needs JWT_SECRET, JWT_PUBLIC_KEY_FILE or JWT_JWKS_URL');
  const verifyPublic = pemKeys.length > 0 || jwks !== undefined ? publicKeyVerification(pemKeys, jwks, claims) : undefined;

  const verify = async (token: string): Promise<JWTPayload> => {
    const { alg, kid } = decodeProtectedHeader(token);
    if (alg === 'HS256') {
      if (secret === undefined) throw new InvalidTokenError('JWT refused: alg HS256 needs JWT_SECRET, which is not set');
      return (await jwtVerify(token, await secret, { ...claims, algorithms: ['HS256'] })).payload;
    }
    if (!ASYMMETRIC_ALGORITHMS.includes(alg as AsymmetricAlgorithm))
      throw new InvalidTokenError(`JWT refused: alg ${quoted(alg)} is not allowed (HS256, ${ASYMMETRIC_ALGORITHMS.join(', ')} are)`);
    if (verifyPublic === undefined) throw new InvalidTokenError(`JWT refused: alg ${alg} needs a public key, and only JWT_SECRET (HS256) is set`);
    return verifyPublic(token, alg as AsymmetricAlgorithm, kid);
  };

  return async (token) => {
    if (!JWT_SHAPE.test(token)) return undefined;
    try {
      return principalOf(await verify(token));
    } catch (error) {
      throw refusal(error);
    }
  };
}

/** JWT_SECRET's UTF-8 bytes as an HMAC key, imported once rather than on every token. */
function hmacKey(secret: string): Promise<CryptoKey> {
  const bytes = new TextEncoder().encode(secret);
  if (bytes.length < MIN_SECRET_BYTES)
    throw new ConfigError(`JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes for HS256, got ${bytes.length}`);
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

/**
 * Any failure refuses the token (it fails closed), with a message for the log: jose's errors carry
 * their code (ERR_JWT_EXPIRED, ERR_JWS_SIGNATURE_VERIFICATION_FAILED, ERR_JWT_CLAIM_VALIDATION_FAILED, …).
 */
function refusal(error: unknown): InvalidTokenError {
  if (error instanceof InvalidTokenError) return error;
  if (error instanceof errors.JOSEError) return new InvalidTokenError(`JWT refused (${error.code}): ${error.message}`);
  return new InvalidTokenError(`JWT refused: ${error instanceof Error ? error.message : String(error)}`);
}
