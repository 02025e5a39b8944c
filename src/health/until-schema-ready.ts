import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import type { Admission } from '../http/server.js';
import type { SchemaPhase } from '../startup/schema-setup.js';

const starting = new HttpError(503, messages.starting, { 'Retry-After': '1' });

/**
 * While the schema is being put in place (the database answered, and what the settings need is
 * not all applied yet: migrationsFor in src/db/statements.ts), each API request is refused 503
 * with Retry-After before it is routed, never served against a table, column or index still
 * missing. While the database does not answer at all, requests go on and fail as any storage
 * failure does (500, as the contract says). Afterwards `next` (RATE_LIMIT), if any, decides.
 */
export function untilSchemaReady(phase: () => SchemaPhase, next?: Admission): Admission {
  return (req, res, client) => {
    if (phase() === 'applying') throw starting;
    return next?.(req, res, client);
  };
}
