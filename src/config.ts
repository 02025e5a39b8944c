import { randomBytes } from 'node:crypto';

export interface DbConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export interface Config {
  port: number;
  host: string;
  db: DbConfig;
  accessPassword: string;
  /** True when ACCESS_PASSWORD was unset and a random one was generated for this run. */
  accessPasswordGenerated: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function port(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`${name} must be a port number from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

/** Database names are interpolated into DDL, so only plain identifiers are accepted. */
function identifier(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback);
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(value)) {
    throw new ConfigError(`${name} must be 1-64 letters, digits, "_" or "$", got "${value}"`);
  }
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  const configured = env.ACCESS_PASSWORD;
  const accessPasswordGenerated = configured === undefined || configured === '';
  return {
    port: port(env, 'PORT', 5000),
    host: text(env, 'HOST', '0.0.0.0'),
    db: {
      host: text(env, 'DB_HOST', 'db'),
      port: port(env, 'DB_PORT', 3306),
      user: text(env, 'DB_USER', 'root'),
      password: env.DB_PASSWORD ?? '',
      database: identifier(env, 'DB_NAME', 'restapi'),
    },
    accessPassword: accessPasswordGenerated ? randomBytes(18).toString('base64url') : configured,
    accessPasswordGenerated,
  };
}
