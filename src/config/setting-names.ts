/**
 * Every environment variable the service reads, as docs/configuration.md lists them (a unit test
 * keeps the two the same). NODE_ENV is the platform's, read for production starts.
 */
export const SETTINGS = [
  'PORT', 'HOST', 'DB_HOST', 'DB_PORT', 'DB_USER', 'DB_PASSWORD', 'DB_SOCKET', 'DB_NAME', 'DB_POOL_SIZE', 'WORKERS',
  'DB_EMBEDDED_DIR', 'DB_EMBEDDED_BIN', 'LOG_FORMAT', 'ACCESS_PASSWORD', 'AUTH', 'API_KEYS_FILE', 'JWT_SECRET',
  'JWT_PUBLIC_KEY_FILE', 'JWT_JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE', 'AUTH_MAX_FAILURES', 'AUTH_WINDOW_S', 'RATE_LIMIT',
  'LIMITS_SHARED', 'LIMITS_SYNC_MS', 'EVENTS', 'EVENTS_RETENTION', 'IDEMPOTENCY', 'IDEMPOTENCY_TTL', 'WEBHOOK_URLS',
  'WEBHOOK_SECRET', 'WEBHOOK_RETRY_FOR', 'WEBHOOK_TIMEOUT_S', 'WEBHOOK_CONCURRENCY', 'SHUTDOWN_DELAY_S', 'TRUST_PROXY',
  'API_COMPAT', 'METRICS', 'METRICS_PORT', 'METRICS_HOST', 'VALIDATE_EMAIL', 'UNIQUE_EMAIL', 'TLS_CERT_FILE', 'TLS_KEY_FILE',
  'TLS_CLIENT_CA_FILE', 'TLS_TICKET_KEYS', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_SERVICE_NAME', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'WEBHOOK_ALLOW_NETWORKS', 'WEBHOOK_HTTPS_ONLY',
  'WEBHOOK_DISABLE_AFTER',
] as const;

/** The tests' own variables (docs/configuration.md lists them too); never read by the service. */
export const TEST_SETTINGS = ['TEST_DB_HOST', 'TEST_DB_PORT', 'TEST_DB_USER', 'TEST_DB_PASSWORD', 'TEST_FILE_LIMIT_S'] as const;

/**
 * Other programs' variables that resemble a setting: OpenSSL's and Node's certificate locations
 * (SSL_CERT_FILE is one edit from TLS_CERT_FILE) are set on many machines for their own reasons.
 */
const OTHERS = ['SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'NODE_TLS_REJECT_UNAUTHORIZED', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'];

/** Prefixes only the service's variables use: any other name that starts so is a mistake. */
const OWNED_PREFIXES = ['DB_', 'JWT_', 'WEBHOOK_', 'AUTH_', 'EVENTS_', 'IDEMPOTENCY_', 'LIMITS_', 'METRICS_', 'RATE_LIMIT', 'SHUTDOWN_', 'TLS_'];

/** Edits (insert, delete, replace, swap two neighbours) from one name to the other. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i]![j] = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i]![j] = Math.min(rows[i]![j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

/** The setting `name` most likely meant, and how sure: undefined for a name that is not like any. */
function closest(name: string): string | undefined {
  let best: { setting: string; edits: number } | undefined;
  for (const setting of SETTINGS) {
    const edits = distance(name, setting);
    if (best === undefined || edits < best.edits) best = { setting, edits };
  }
  if (best === undefined) return undefined;
  const owned = OWNED_PREFIXES.some((prefix) => name.startsWith(prefix));
  // A near miss (a letter, or two in a long name), or any name in a prefix of the service's own.
  const near = best.edits <= Math.max(1, Math.floor(best.setting.length / 5));
  return near || owned ? best.setting : undefined;
}

/** One warning per variable that looks like one of the service's settings but is not: [the name, the setting it is closest to]. */
export function lookAlikeSettings(env: NodeJS.ProcessEnv): Array<[name: string, closest: string]> {
  const known = new Set<string>([...SETTINGS, ...TEST_SETTINGS, ...OTHERS]);
  const found: Array<[string, string]> = [];
  for (const name of Object.keys(env).sort()) {
    if (known.has(name) || !/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    const setting = closest(name);
    if (setting !== undefined) found.push([name, setting]);
  }
  return found;
}
