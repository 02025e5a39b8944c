import { isIP } from 'node:net';
import { ConfigError, port, text, type Env } from './env-values.js';

/** A host name: dot-separated labels of letters, digits, `-` and `_`, at most 253 characters. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/**
 * HOST: an IP address or a host name. A name whose last label is a number (`999.1.1.1`, `1.2.3`)
 * is an address gone wrong, not a name: refused here rather than looked up. Whether a name resolves,
 * and whether the address is this machine's, the start finds out by binding it (listen-check.ts).
 */
export function listenHost(env: Env): string {
  const host = text(env, 'HOST', '0.0.0.0');
  if (isIP(host) !== 0) return host;
  if (!HOST_NAME.test(host) || /^\d+$/.test(host.replace(/\.$/, '').split('.').at(-1)!)) {
    throw new ConfigError(`HOST must be an IP address (0.0.0.0, ::, 127.0.0.1, ...) or a host name, got "${host}"`);
  }
  return host;
}

/**
 * METRICS_PORT: only with METRICS=on, and another port than PORT (0 for either lets the system
 * choose, so two zeros are two ports). Refused rather than ignored: a scraper pointed at a port
 * nothing serves fails long after the start, while a refused start is seen at once.
 */
export function metricsPort(env: Env, metrics: boolean, apiPort: number): number | undefined {
  const raw = text(env, 'METRICS_PORT', '');
  if (raw === '') return undefined;
  const chosen = port(env, 'METRICS_PORT', 0);
  if (!metrics) throw new ConfigError('METRICS_PORT is set but METRICS is not on: set METRICS=on to serve /metrics there, or unset METRICS_PORT');
  if (chosen !== 0 && chosen === apiPort) {
    throw new ConfigError(`METRICS_PORT must differ from PORT (both ${chosen}): /metrics gets a port of its own, or unset METRICS_PORT to serve it on PORT`);
  }
  return chosen;
}

/**
 * METRICS_HOST: an IP address (or `localhost`), so that the metrics port can stay on loopback or a
 * private interface while HOST is public. Unset: HOST, where METRICS_PORT listened before it existed.
 * Without METRICS_PORT it would do nothing, and `/metrics` would be on the API port after all: refused.
 */
export function metricsHost(env: Env, host: string): string {
  const raw = text(env, 'METRICS_HOST', '');
  if (raw === '') return host;
  if (raw !== 'localhost' && isIP(raw) === 0) {
    throw new ConfigError(`METRICS_HOST must be an IP address such as 127.0.0.1 or ::1 (or localhost), got "${raw}"`);
  }
  if (text(env, 'METRICS_PORT', '') === '') {
    throw new ConfigError('METRICS_HOST is set but METRICS_PORT is not: without it /metrics is served on the API port, at HOST');
  }
  return raw;
}
