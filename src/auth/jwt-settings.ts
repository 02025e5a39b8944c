/** How JWTs are verified (JWT_* settings); at least one key source is set when this exists. */
export interface JwtSettings {
  /** JWT_SECRET: the shared secret of HS256 tokens. */
  secret?: string;
  /** JWT_PUBLIC_KEY_FILE: PEM public keys (RSA, EC P-256, Ed25519) for RS256, ES256 and EdDSA tokens. */
  publicKeyFile?: string;
  /** JWT_JWKS_URL: where the identity provider publishes its public keys. */
  jwksUrl?: string;
  /** JWT_ISSUER: the `iss` every token must carry, when set. */
  issuer?: string;
  /** JWT_AUDIENCE: the `aud` every token must carry, when set; a token without `aud` is refused then. */
  audience?: string;
}
