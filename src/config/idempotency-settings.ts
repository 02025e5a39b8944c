import { oneOf, type Env } from './env-values.js';
import { duration } from './event-settings.js';

/** IDEMPOTENCY=on: POST /api/users honours an Idempotency-Key header. */
export interface IdempotencySettings {
  /** How long a key's first answer is kept and replayed (IDEMPOTENCY_TTL, default 24 h), in seconds. */
  ttlSeconds: number;
}

/** Undefined (the default): the header is ignored, as the contract's service does, and no table is added. */
export function idempotencySettings(env: Env): IdempotencySettings | undefined {
  if (oneOf(env, 'IDEMPOTENCY', ['on', 'off'], 'off') === 'off') return undefined;
  return { ttlSeconds: duration(env, 'IDEMPOTENCY_TTL', 86_400) };
}
