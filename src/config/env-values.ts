/** Reading one environment variable each: a value, its default when unset or empty, or a ConfigError naming it. */

/** A setting that cannot be used: its message is the one line the start prints. */
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

export function port(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`${name} must be a port number from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

export function positive(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ConfigError(`${name} must be a whole number from 1 to 999999999, got "${raw}"`);
  return Number(raw);
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** Database names are interpolated into DDL, so only plain identifiers are accepted. */
export function identifier(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback);
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(value)) {
    throw new ConfigError(`${name} must be 1-64 letters, digits, "_" or "$", got "${value}"`);
  }
  return value;
}

export function count(env: Env, name: string, fallback: number, max: number, auto?: () => number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (auto && raw === 'auto') return auto();
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max}${auto ? ' or "auto"' : ''}, got "${raw}"`);
  }
  return Number(raw);
}

/** A whole number of seconds from 0 to `max`. */
export function seconds(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) > max) throw new ConfigError(`${name} must be a whole number of seconds from 0 to ${max}, got "${raw}"`);
  return Number(raw);
}
