import { isIP } from 'node:net';
import { ConfigError, count, oneOf, text, type Env } from './env-values.js';

/** EVENTS, WEBHOOK_*: change events, on only when asked for. */
export interface EventSettings {
  /** How long events stay readable (EVENTS_RETENTION, default 7 days), in seconds. */
  retentionSeconds: number;
  /** Delivery to WEBHOOK_URLS (the operator's) and to the endpoints made through the API (always given by eventSettings). */
  webhooks: WebhookSettings | undefined;
}

export interface WebhookSettings {
  /** WEBHOOK_URLS: the operator's endpoints (`source: "env"`), possibly none. */
  urls: string[];
  /** WEBHOOK_SECRET's key bytes (the base64 after `whsec_`): required with WEBHOOK_URLS, which it signs. */
  secret: Buffer | undefined;
  /** How long a delivery is retried before it is marked failed (WEBHOOK_RETRY_FOR, default 3 days), in seconds. */
  retryForSeconds: number;
  /** An endpoint that has not answered 2xx within this many seconds has not acknowledged (WEBHOOK_TIMEOUT_S, default 10). */
  timeoutSeconds: number;
  /** Deliveries in flight at once per endpoint (WEBHOOK_CONCURRENCY, default 8). */
  concurrency: number;
  /** WEBHOOK_ALLOW_NETWORKS: CIDRs that API endpoints may reach although private or reserved (none by default). */
  allowNetworks: string[];
  /** WEBHOOK_HTTPS_ONLY=on: API endpoints must be https URLs. */
  httpsOnly: boolean;
  /** An API endpoint whose every attempt failed for this long is disabled (WEBHOOK_DISABLE_AFTER, default 5d; undefined: `off`). */
  disableAfterSeconds: number | undefined;
}

const UNITS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** Undefined (the default) when EVENTS is off and no WEBHOOK_URLS are given: nothing is recorded. */
export function eventSettings(env: Env): EventSettings | undefined {
  const urls = webhookUrls(env);
  const on = oneOf(env, 'EVENTS', ['on', 'off'], urls.length > 0 ? 'on' : 'off') === 'on';
  if (!on) {
    if (urls.length > 0) throw new ConfigError('WEBHOOK_URLS needs EVENTS=on (or EVENTS unset)');
    return undefined;
  }
  return {
    retentionSeconds: duration(env, 'EVENTS_RETENTION', 7 * UNITS.d),
    webhooks: {
      urls,
      secret: urls.length === 0 && text(env, 'WEBHOOK_SECRET', '') === '' ? undefined : webhookSecret(env),
      retryForSeconds: duration(env, 'WEBHOOK_RETRY_FOR', 3 * UNITS.d),
      timeoutSeconds: count(env, 'WEBHOOK_TIMEOUT_S', 10, 300),
      concurrency: count(env, 'WEBHOOK_CONCURRENCY', 8, 256),
      allowNetworks: allowedNetworks(env),
      httpsOnly: oneOf(env, 'WEBHOOK_HTTPS_ONLY', ['on', 'off'], 'off') === 'on',
      disableAfterSeconds: text(env, 'WEBHOOK_DISABLE_AFTER', '') === 'off' ? undefined : duration(env, 'WEBHOOK_DISABLE_AFTER', 5 * UNITS.d),
    },
  };
}

/** WEBHOOK_ALLOW_NETWORKS: comma-separated CIDRs such as 127.0.0.0/8 or ::1/128. */
function allowedNetworks(env: Env): string[] {
  const networks = text(env, 'WEBHOOK_ALLOW_NETWORKS', '').split(',').map((each) => each.trim()).filter((each) => each !== '');
  for (const network of networks) {
    const match = /^([^/]+)\/(\d{1,3})$/.exec(network);
    const family = match ? isIP(match[1]!) : 0;
    if (!match || family === 0 || Number(match[2]) > (family === 4 ? 32 : 128)) {
      throw new ConfigError(`WEBHOOK_ALLOW_NETWORKS must be comma-separated CIDRs such as 127.0.0.0/8 or ::1/128, got "${network}"`);
    }
  }
  return networks;
}

function webhookUrls(env: Env): string[] {
  const raw = text(env, 'WEBHOOK_URLS', '');
  const urls = raw.split(',').map((each) => each.trim()).filter((each) => each !== '');
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ConfigError(`WEBHOOK_URLS must be comma-separated http or https URLs, got "${url}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`WEBHOOK_URLS must be http or https URLs, got "${url}"`);
    if (parsed.username !== '' || parsed.password !== '') throw new ConfigError('WEBHOOK_URLS must not carry credentials: deliveries are signed with WEBHOOK_SECRET');
  }
  if (new Set(urls).size !== urls.length) throw new ConfigError('WEBHOOK_URLS names the same URL twice');
  return urls;
}

/** `whsec_` then base64 of 24 to 64 bytes, as Standard Webhooks secrets are written. */
function webhookSecret(env: Env): Buffer {
  const raw = text(env, 'WEBHOOK_SECRET', '');
  if (raw === '') throw new ConfigError('WEBHOOK_URLS needs WEBHOOK_SECRET (whsec_ followed by base64): every delivery is signed');
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(raw);
  const key = match ? Buffer.from(match[1]!, 'base64') : Buffer.alloc(0);
  if (key.length < 24 || key.length > 64) throw new ConfigError('WEBHOOK_SECRET must be whsec_ followed by the base64 of 24 to 64 random bytes');
  return key;
}

/** A whole number of seconds, minutes, hours or days: `30s`, `15m`, `12h`, `7d`. */
/** A duration such as 30s, 12h or 7d, in seconds. */
export function duration(env: Env, name: string, fallback: number): number {
  const raw = text(env, name, '');
  if (raw === '') return fallback;
  const match = /^([1-9]\d{0,5})([smhd])$/.exec(raw);
  if (!match) throw new ConfigError(`${name} must be a whole number of s, m, h or d such as 30s, 12h or 7d, got "${raw}"`);
  return Number(match[1]) * UNITS[match[2] as keyof typeof UNITS];
}
