import type { Config } from '../config/environment.js';
import type { SchemaNeeds } from './schema.js';

/**
 * What the schema must hold for these settings: the one answer every way of starting uses (one
 * process, the primary of several workers, `npm run db:migrate`), so that none can start without a
 * table a feature it serves writes.
 */
export function schemaNeeds(config: Pick<Config, 'uniqueEmail' | 'events' | 'idempotency' | 'sharedLimits'>): SchemaNeeds {
  return {
    uniqueEmail: config.uniqueEmail,
    events: config.events !== undefined,
    idempotency: config.idempotency !== undefined,
    sharedLimits: config.sharedLimits !== undefined,
  };
}
