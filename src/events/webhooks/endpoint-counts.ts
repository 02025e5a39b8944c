import type { Database } from '../../db/database.js';
import { webhookSql } from '../../db/webhook-statements.js';

/** An endpoint ever seen, with the deliveries it has left, and whether a process delivers to it now. */
export interface EndpointCount {
  /** Its key: the SHA-256 of its URL (endpointKey) for one of WEBHOOK_URLS, random for one of the API. */
  endpoint: string;
  url: string;
  /** Its id in the API; undefined for an endpoint no process has listed yet. */
  id: number | undefined;
  source: 'env' | 'api';
  disabled: boolean;
  pending: number;
  failed: number;
  /** A process holds its lease: some running service has it in WEBHOOK_URLS. */
  delivered: boolean;
}

interface CountRow {
  endpoint: string;
  url: string;
  id: number | string | null;
  source: 'env' | 'api';
  disabled: number | string;
  pending: number | string;
  failed: number | string;
  delivered: number | string;
}

/** Every endpoint in webhook_endpoints, by URL. */
export async function endpointCounts(db: Pick<Database, 'read'>): Promise<EndpointCount[]> {
  const rows = await db.read<CountRow[]>(webhookSql.endpointCounts, []);
  return rows.map((row) => ({
    endpoint: row.endpoint,
    url: row.url,
    id: row.id === null ? undefined : Number(row.id),
    source: row.source,
    disabled: Number(row.disabled) === 1,
    pending: Number(row.pending),
    failed: Number(row.failed),
    delivered: Number(row.delivered) === 1,
  }));
}
