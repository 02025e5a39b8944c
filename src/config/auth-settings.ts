import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, oneOf, text, type Env } from './env-values.js';
import { unreadable } from './unreadable.js';

/** AUTH: which requests need a bearer token. `off`, the default, is the contract as it is. */
export const authModes = ['off', 'writes', 'all'] as const;
export type AuthMode = (typeof authModes)[number];

/**
 * Bearer tokens. With `writes`, creating, updating and deleting users need a token with
 * `users:write`; with `all`, reading one user also needs `users:read`, and the list takes `pwd` or
 * a token with `users:read`. At least one source of tokens is set when the mode is not `off`.
 */
export interface AuthSettings {
  mode: AuthMode;
  /**
   * API_KEYS_FILE, as an absolute path; its keys are auth's to read (src/auth/token-sources.ts
   * checks them before the start, the verifier reads them again whenever the file changes).
   */
  apiKeysFile?: string;
  /** The JWT_* settings, present when a JWT key source is set. */
  jwt?: JwtSettings;
  /** With AUTH=off: the token settings given anyway, which the service ignores (it warns at start). */
  ignored?: string[];
}

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

/** Without AUTH: no token is asked for anywhere. */
export const AUTH_OFF: Readonly<AuthSettings> = Object.freeze({ mode: 'off' });

const TOKEN_SETTINGS = ['API_KEYS_FILE', 'JWT_SECRET', 'JWT_PUBLIC_KEY_FILE', 'JWT_JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE'] as const;
const JWT_KEY_SOURCES = 'JWT_SECRET, JWT_PUBLIC_KEY_FILE or JWT_JWKS_URL';
/** HS256 needs a secret at least as long as its hash (RFC 7518 3.2): a shorter one can be brute-forced offline from one token. */
const MIN_JWT_SECRET_BYTES = 32;

/**
 * AUTH and the token settings. With AUTH=off none of them is read (not even the files): the
 * service behaves exactly as without them, and names the ignored ones so that it can warn.
 */
export function authSettings(env: Env): AuthSettings {
  const mode = oneOf(env, 'AUTH', authModes, 'off');
  if (mode === 'off') {
    const ignored = TOKEN_SETTINGS.filter((name) => text(env, name, '') !== '');
    return ignored.length === 0 ? { mode } : { mode, ignored };
  }
  const jwt = jwtSettings(env);
  const keysFile = text(env, 'API_KEYS_FILE', '');
  if (keysFile === '' && jwt === undefined) {
    throw new ConfigError(`AUTH=${mode} needs a source of tokens: API_KEYS_FILE, or a JWT key (${JWT_KEY_SOURCES})`);
  }
  const settings: AuthSettings = { mode };
  if (keysFile !== '') settings.apiKeysFile = resolve(keysFile);
  if (jwt !== undefined) settings.jwt = jwt;
  return settings;
}

/** The JWT_* settings; undefined when no key source is set (and then neither issuer nor audience may be). */
function jwtSettings(env: Env): JwtSettings | undefined {
  const secret = text(env, 'JWT_SECRET', '');
  const publicKeyFile = text(env, 'JWT_PUBLIC_KEY_FILE', '');
  const jwksUrl = text(env, 'JWT_JWKS_URL', '');
  const issuer = text(env, 'JWT_ISSUER', '');
  const audience = text(env, 'JWT_AUDIENCE', '');
  if (secret === '' && publicKeyFile === '' && jwksUrl === '') {
    const orphan = issuer !== '' ? 'JWT_ISSUER' : audience !== '' ? 'JWT_AUDIENCE' : undefined;
    if (orphan) throw new ConfigError(`${orphan} is set but no JWT key is: set ${JWT_KEY_SOURCES} as well`);
    return undefined;
  }
  const settings: JwtSettings = {};
  if (secret !== '') {
    if (Buffer.byteLength(secret) < MIN_JWT_SECRET_BYTES) {
      throw new ConfigError(`JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes (256 bits): a shorter HS256 secret can be guessed from one token`);
    }
    settings.secret = secret;
  }
  if (publicKeyFile !== '') {
    settings.publicKeyFile = resolve(publicKeyFile);
    try {
      readFileSync(settings.publicKeyFile);
    } catch (error) {
      throw new ConfigError(`JWT_PUBLIC_KEY_FILE (${publicKeyFile}) cannot be read (${unreadable(error)})`);
    }
  }
  if (jwksUrl !== '') settings.jwksUrl = jwksLocation(jwksUrl);
  if (issuer !== '') settings.issuer = issuer;
  if (audience !== '') settings.audience = audience;
  return settings;
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** JWT_JWKS_URL: https, since whoever can change the keys in transit can sign tokens; plain http only on this machine. */
export function jwksLocation(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`JWT_JWKS_URL must be an https:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new ConfigError(`JWT_JWKS_URL must be an https:// URL (http:// only to localhost), got "${raw}"`);
  }
  return raw;
}
