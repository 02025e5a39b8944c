import { createHmac } from 'node:crypto';

/** The id a receiver sees for an event (`webhook-id`): the same on every attempt, so it can drop repeats. */
export function webhookId(eventId: number): string {
  return `evt_${eventId}`;
}

/**
 * The Standard Webhooks headers of one attempt: its id, the attempt's time in unix seconds, and
 * `v1,` followed by the base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` under each key that
 * signs now (two while a rotated key's grace lasts), space-separated.
 */
export function signedHeaders(keys: Buffer | readonly Buffer[], id: string, body: string, nowMs = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const signed = `${id}.${timestamp}.${body}`;
  const signatures = (Buffer.isBuffer(keys) ? [keys] : keys).map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
