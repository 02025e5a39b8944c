import { readApiKeysFile } from '../auth/api-key-file.js';
import type { Config, JwtSettings } from '../config/environment.js';
import type { LogFields } from '../log/logger.js';

/**
 * The start-up line's word on the optional features, each named whether on or off: AUTH (with how
 * many API keys API_KEYS_FILE holds, and where JWT keys come from), EVENTS, how many webhook
 * endpoints (never their URLs, which can carry a secret in their path or query), IDEMPOTENCY,
 * RATE_LIMIT, where the limits are counted (LIMITS_SHARED), WORKERS, and HTTPS (TLS_*: `on`, or
 * `mutual` with client certificates), and span export (OTEL_*: the protocol and sampler, never the
 * endpoint, whose headers may hold a key).
 */
export function featureSummary(config: Pick<Config, 'auth' | 'events' | 'idempotency' | 'rateLimit' | 'sharedLimits' | 'workers' | 'tls' | 'tracing'>): LogFields {
  const { auth, events, idempotency, rateLimit, sharedLimits, workers, tls, tracing } = config;
  return {
    auth: auth.mode,
    ...(auth.apiKeysFile === undefined ? {} : { apiKeys: apiKeyCount(auth.apiKeysFile) }),
    ...(auth.jwt === undefined ? {} : { jwt: jwtSources(auth.jwt) }),
    events: events === undefined ? 'off' : 'on',
    webhookEndpoints: events?.webhooks?.urls.length ?? 0,
    idempotency: idempotency === undefined ? 'off' : 'on',
    rateLimit: rateLimit === undefined ? 'off' : `${rateLimit.requests}/${rateLimit.windowSeconds}s`,
    limits: sharedLimits === undefined ? 'per instance' : `shared, synced every ${sharedLimits.syncMs} ms`,
    workers,
    tls: tls === undefined ? 'off' : tls.clientCaFile === undefined ? 'on' : 'mutual',
    tracing: tracing === undefined ? 'off' : `${tracing.protocol}, ${tracing.sampler} ${tracing.ratio}`,
  };
}

/** The keys the file holds now; the service read it before it listened, so failing here means it changed since. */
function apiKeyCount(path: string): number | string {
  try {
    return readApiKeysFile(path).size;
  } catch {
    return 'unreadable';
  }
}

function jwtSources(jwt: JwtSettings): string {
  const sources = [jwt.secret && 'JWT_SECRET', jwt.publicKeyFile && 'JWT_PUBLIC_KEY_FILE', jwt.jwksUrl && 'JWT_JWKS_URL'];
  return sources.filter((source): source is string => typeof source === 'string' && source !== '').join(', ');
}
