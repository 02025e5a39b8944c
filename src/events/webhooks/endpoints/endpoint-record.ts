import { randomBytes } from 'node:crypto';
import type { EventType } from '../../event-log.js';
import { isoTime } from '../../event-json.js';

export const EVENT_TYPES: readonly EventType[] = ['user.created', 'user.updated', 'user.deleted'];

/** An endpoint as stored: its settings, not its secret. */
export interface EndpointRecord {
  id: number;
  /** Its key in webhook_endpoints and webhook_deliveries. */
  endpoint: string;
  source: 'env' | 'api';
  url: string;
  description: string | null;
  /** Null: every type. */
  eventTypes: EventType[] | null;
  disabled: boolean;
  disabledReason: string | null;
  metadata: Record<string, string>;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** What an integrator sets; a PATCH gives some of it, merged over the record. */
export interface EndpointSettings {
  url: string;
  description: string | null;
  eventTypes: EventType[] | null;
  disabled: boolean;
  metadata: Record<string, string>;
}

export interface SubscriptionRow {
  id: number | string;
  endpoint: string;
  source: 'env' | 'api';
  url: string;
  description: string | null;
  event_types: string | null;
  disabled: number;
  disabled_reason: string | null;
  metadata: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export function recordOf(row: SubscriptionRow): EndpointRecord {
  return {
    id: Number(row.id),
    endpoint: row.endpoint,
    source: row.source,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types === null ? null : (JSON.parse(row.event_types) as EventType[]),
    disabled: row.disabled === 1,
    disabledReason: row.disabled_reason,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The endpoint as the API shows it: snake_case, ISO times, never the secret. */
export function endpointJson(record: EndpointRecord): Record<string, unknown> {
  return {
    id: record.id,
    url: record.url,
    description: record.description,
    event_types: record.eventTypes,
    disabled: record.disabled,
    disabled_reason: record.disabledReason,
    metadata: record.metadata,
    source: record.source,
    created_at: isoTime(record.createdAt),
    updated_at: isoTime(record.updatedAt),
  };
}

/** The ETag of an endpoint's settings: its id and version, which every change raises. */
export function endpointTag(record: EndpointRecord): string {
  return `"whe-${record.id}-${record.version}"`;
}

/** A new secret as Standard Webhooks writes them: `whsec_` and the base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a `whsec_` secret. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

/** A new endpoint's key: random, so that two endpoints with one URL are two endpoints, and a changed URL keeps its deliveries. */
export function newEndpointKey(): string {
  return randomBytes(32).toString('hex');
}
