import { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** A test secret of the 32 bytes HS256 needs at least. */
export const SECRET = 'a-test-secret-of-at-least-32-bytes';

export type SigningAlg = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

/** A key pair of an identity provider in a test: signs tokens, and publishes its public key as PEM or JWK. */
export interface SigningKey {
  readonly alg: SigningAlg;
  readonly kid: string;
  /** A KeyObject rather than a CryptoKey, which is bound to one algorithm: an RSA key signs PS256 and RS384 too. */
  readonly privateKey: KeyObject;
  readonly publicKey: CryptoKey;
}

let kids = 0;

export async function signingKey(alg: SigningAlg, kid = `key-${++kids}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey: KeyObject.from(privateKey), publicKey };
}

export function pemOf(key: SigningKey): Promise<string> {
  return exportSPKI(key.publicKey);
}

export async function jwkOf(key: SigningKey): Promise<JWK> {
  return { ...(await exportJWK(key.publicKey)), kid: key.kid, alg: key.alg, use: 'sig' };
}

export interface TokenOptions {
  /** Put the key's kid in the header; true unless false. */
  kid?: boolean;
  /** Seconds from now; 300 unless given; null leaves `exp` out. */
  expiresIn?: number | null;
  /** The header's alg; the key's unless given (to sign PS256 with an RSA key of RS256, say). */
  alg?: string;
}

/** A token for `sub: alice` with the claims given (undefined ones left out), signed by the key. */
export function signedToken(key: SigningKey, claims: JWTPayload = {}, options: TokenOptions = {}): Promise<string> {
  const header = { alg: options.alg ?? key.alg, ...(options.kid === false ? {} : { kid: key.kid }) };
  return build(claims, options).setProtectedHeader(header).sign(key.privateKey);
}

/** An HS256 token for `sub: alice`, its HMAC key the secret given (JWT_SECRET's, unless another). */
export function hs256Token(claims: JWTPayload = {}, secret: string = SECRET, options: TokenOptions = {}): Promise<string> {
  return build(claims, options)
    .setProtectedHeader({ alg: options.alg ?? 'HS256' })
    .sign(new TextEncoder().encode(secret));
}

function build(claims: JWTPayload, options: TokenOptions): SignJWT {
  const payload: JWTPayload = { sub: 'alice', ...claims };
  for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
  const jwt = new SignJWT(payload).setIssuedAt();
  const expiresIn = options.expiresIn === undefined ? 300 : options.expiresIn;
  if (expiresIn !== null && claims.exp === undefined) jwt.setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn);
  return jwt;
}

/** A temporary folder for PEM files, removed after the test (or suite) whose `after` is given. */
export function pemFolder(after: (fn: () => void) => void): (name: string, pem: string) => string {
  const dir = mkdtempSync(join(tmpdir(), 'usvc-jwt-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return (name, pem) => {
    const file = join(dir, name);
    writeFileSync(file, pem);
    return file;
  };
}
