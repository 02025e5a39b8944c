import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import type { Admission } from '../http/server.js';
import type { SchemaPhase } from '../startup/schema-setup.js';

const starting = new HttpError(503, messages.starting, { 'Retry-After': '1' });

/**
 * Until the schema is known usable (the start has not reached the database yet, or is applying a
 * step requests wait for: a table or column they read or write), each API request is refused 503
 * with Retry-After before it is routed, never served against a table or column still missing. Once
 * one is served, none is refused for start-up reasons again: index builds run while requests are
 * served. While the database does not answer at all, requests go on and fail as any storage failure
 * does (500, as the contract says). Afterwards `next` (RATE_LIMIT), if any, decides.
 */
export function untilSchemaReady(phase: () => SchemaPhase, next?: Admission): Admission {
  return (req, res, client) => {
    const now = phase();
    if (now === 'applying' || now === 'starting') throw starting;
    return next?.(req, res, client);
  };
}
