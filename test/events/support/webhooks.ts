import type { EventSettings, WebhookSettings } from '../../../src/config/environment.js';
import { eventJson } from '../../../src/events/event-json.js';
import type { StoredEvent } from '../../../src/events/event-log.js';
import type { TestDatabase } from '../../helpers/database.js';
import { request } from '../../helpers/http.js';
import { waitUntil } from '../../helpers/poll-until.js';
import type { Receiver } from './receiver.js';
import { numberedEvents } from './numbered.js';

/** EVENTS=on with the receiver as the one webhook endpoint; the rest as given, else the defaults. */
export function webhookEvents(receiver: Receiver, given: Partial<WebhookSettings> = {}): EventSettings {
  return {
    retentionSeconds: 7 * 86_400,
    webhooks: { urls: [receiver.url], secret: receiver.key, retryForSeconds: 3 * 86_400, timeoutSeconds: 10, concurrency: 8, allowNetworks: [], httpsOnly: false, disableAfterSeconds: undefined, ...given },
  };
}

/** The same as environment variables, for a child service. */
export function webhookEnv(receiver: Receiver, given: Record<string, string> = {}): Record<string, string> {
  return { EVENTS: 'on', WEBHOOK_URLS: receiver.url, WEBHOOK_SECRET: receiver.secret, LOG_FORMAT: 'json', ...given };
}

/**
 * Resolves once the endpoint's row exists: a new endpoint starts after the last event recorded
 * when it is first seen, so a test writes only after this.
 */
export async function endpointRegistered(db: TestDatabase, timeoutMs = 30_000): Promise<void> {
  await waitUntil(
    'the webhook endpoint to be registered',
    async () => (await db.query<unknown[]>('SELECT 1 FROM webhook_endpoints').catch(() => [])).length > 0,
    { timeoutMs, intervalMs: 100 },
  );
}

/** The outbox's events as the service reads them (times in UTC), in id order, once all have their ids. */
export function storedEvents(db: TestDatabase): Promise<StoredEvent[]> {
  return numberedEvents(db);
}

/** The JSON body each stored event is delivered with, by id. */
export async function eventBodies(db: TestDatabase): Promise<Map<number, string>> {
  return new Map((await storedEvents(db)).map((event) => [event.id, eventJson(event)]));
}

/** Creates a user through the API; resolves with its id. */
export async function createUser(baseUrl: string, name: string, requestId?: string): Promise<number> {
  const res = await request(baseUrl, 'POST', '/api/users', {
    json: { name, email: `${name.toLowerCase().replace(/\W/g, '')}@hooks.example` },
    ...(requestId ? { headers: { 'x-request-id': requestId } } : {}),
  });
  if (res.status !== 201) throw new Error(`POST /api/users answered ${res.status}`);
  return Number(res.headers.get('location')!.split('/').pop());
}

/** Renames a user through the API (PATCH). */
export async function renameUser(baseUrl: string, id: number, name: string): Promise<void> {
  const res = await request(baseUrl, 'PATCH', `/api/users/${id}`, { json: { name } });
  if (res.status !== 200) throw new Error(`PATCH /api/users/${id} answered ${res.status}`);
}

/** For each user, the event ids of its first deliveries in the order they arrived. */
export function firstDeliveriesByUser(receiver: Receiver): Map<number, number[]> {
  const seen = new Set<number>();
  const byUser = new Map<number, number[]>();
  for (const delivery of receiver.received) {
    const { id, data } = delivery.event;
    if (seen.has(id)) continue;
    seen.add(id);
    const ids = byUser.get(data.id) ?? [];
    ids.push(id);
    byUser.set(data.id, ids);
  }
  return byUser;
}
