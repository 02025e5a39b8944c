import { createHash } from 'node:crypto';

/** The key of a WEBHOOK_URLS endpoint in webhook_endpoints and webhook_deliveries: the SHA-256 of its URL (the API's endpoints have random ones). */
export function endpointKey(url: string): string {
  return createHash('sha256').update(url).digest('hex');
}

/** The lease of the process delivering to an endpoint (webhookSql.endpointCounts reads it by this name too). */
export function endpointLease(key: string): string {
  return `webhook:${key}`;
}
