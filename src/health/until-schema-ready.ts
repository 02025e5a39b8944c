import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import type { Admission } from '../http/server.js';

const starting = new HttpError(503, messages.starting, { 'Retry-After': '1' });

/**
 * Until `ready()` (every migration the settings need is applied: migrationsFor in
 * src/db/statements.ts), each API request is refused 503 with Retry-After before it is routed,
 * never served against a table, column or index still missing. Afterwards `next` (RATE_LIMIT), if
 * any, decides.
 */
export function untilSchemaReady(ready: () => boolean, next?: Admission): Admission {
  return (req, res, client) => {
    if (!ready()) throw starting;
    return next?.(req, res, client);
  };
}
