import type { AddressInfo } from 'node:net';
import type { LogFields } from '../log/logger.js';

/** The `listening` line's word on the schema: the port is open (the probes answer), the API waits for `schema ready`. */
export const SCHEMA_PENDING = 'not ready yet: the API answers 503 until it is';

/**
 * The start-up line's fields: where the API, the docs page and the health probes answer, and which
 * database is used. A service listening on every interface is shown as localhost, which a browser
 * on the same machine can open.
 */
export function startupFields(address: AddressInfo, database: string, databaseName: string): LogFields {
  const everywhere = address.address === '0.0.0.0' || address.address === '::';
  const host = everywhere ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const base = `http://${host}:${address.port}`;
  return {
    api: `${base}/api/users`,
    docs: `${base}/apidocs`,
    health: `${base}/healthz`,
    ready: `${base}/readyz`,
    db: database,
    database: databaseName,
    host: address.address,
    port: address.port,
  };
}
