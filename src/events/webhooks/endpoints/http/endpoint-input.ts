import { HttpError } from '../../../../errors/http-error.js';
import type { EventType } from '../../../event-log.js';
import type { AddressGuard } from '../../address-guard.js';
import { endpointUrlProblem } from '../../endpoint-url.js';
import { EVENT_TYPES, type EndpointRecord, type EndpointSettings } from '../endpoint-record.js';

/** What an endpoint's URL must be here: WEBHOOK_HTTPS_ONLY, and the address filter for literal hosts. */
export interface UrlRules {
  httpsOnly: boolean;
  guard: AddressGuard;
}

const MAX_DESCRIPTION = 1000;
const MAX_METADATA_KEYS = 20;
const MAX_METADATA_KEY = 100;
const MAX_METADATA_VALUE = 500;
export const MAX_GRACE_SECONDS = 604_800;
const DEFAULT_GRACE_SECONDS = 86_400;

const SETTABLE = ['url', 'description', 'event_types', 'disabled', 'metadata'] as const;

/** A new endpoint's settings and its secret (undefined: one is made). */
export function creation(body: Record<string, unknown>, rules: UrlRules): { settings: EndpointSettings; secret: string | undefined } {
  refuseUnknown(body, [...SETTABLE, 'secret']);
  if (!('url' in body)) throw invalid('url is required');
  return {
    settings: {
      url: url(body.url, rules),
      description: 'description' in body ? description(body.description) : null,
      eventTypes: 'event_types' in body ? eventTypes(body.event_types) : null,
      disabled: 'disabled' in body ? flag(body.disabled, 'disabled') : false,
      metadata: 'metadata' in body ? metadata(body.metadata) : {},
    },
    secret: 'secret' in body ? secret(body.secret, 'secret') : undefined,
  };
}

/** A PATCH merged over the endpoint's settings: what it names replaces, the rest stays. */
export function merged(record: EndpointRecord, body: Record<string, unknown>, rules: UrlRules): EndpointSettings {
  refuseUnknown(body, SETTABLE);
  return {
    url: 'url' in body ? url(body.url, rules) : record.url,
    description: 'description' in body ? description(body.description) : record.description,
    eventTypes: 'event_types' in body ? eventTypes(body.event_types) : record.eventTypes,
    disabled: 'disabled' in body ? flag(body.disabled, 'disabled') : record.disabled,
    metadata: 'metadata' in body ? metadata(body.metadata) : record.metadata,
  };
}

/** A rotation's new key (undefined: one is made) and how long the old one keeps signing. */
export function rotation(body: Record<string, unknown>): { key: string | undefined; graceSeconds: number } {
  refuseUnknown(body, ['key', 'grace_seconds']);
  const grace = body.grace_seconds ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isInteger(grace) || (grace as number) < 0 || (grace as number) > MAX_GRACE_SECONDS) {
    throw invalid(`grace_seconds must be a whole number from 0 to ${MAX_GRACE_SECONDS}`);
  }
  return { key: body.key === undefined ? undefined : secret(body.key, 'key'), graceSeconds: grace as number };
}

/** A recovery's window, as `YYYY-MM-DD HH:MM:SS.mmm` UTC times: from `since` to `until` (now when absent). */
export function recoveryWindow(body: Record<string, unknown>, nowMs = Date.now()): { since: string; until: string } {
  refuseUnknown(body, ['since', 'until']);
  if (!('since' in body)) throw invalid('since is required (an ISO 8601 time)');
  const since = isoTime(body.since, 'since');
  const until = 'until' in body ? isoTime(body.until, 'until') : nowMs;
  if (since >= until) throw invalid('since must be before until');
  return { since: utc(since), until: utc(until) };
}

/** An ISO 8601 time with a date, a time and a zone, in ms. */
export function isoTime(value: unknown, field: string): number {
  const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw invalid(`${field} must be an ISO 8601 time such as 2026-01-31T12:00:00Z`);
  return ms;
}

/** `YYYY-MM-DD HH:MM:SS.mmm`, UTC, as the database compares times. */
export function utc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
}

export function isEventType(value: unknown): value is EventType {
  return (EVENT_TYPES as readonly unknown[]).includes(value);
}

function refuseUnknown(body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).find((key) => !known.includes(key));
  if (unknown !== undefined) throw invalid(`unknown field "${unknown.slice(0, 50)}": the fields are ${known.join(', ')}`);
}

function url(value: unknown, rules: UrlRules): string {
  const problem = endpointUrlProblem(value, rules);
  if (problem !== undefined) throw invalid(problem);
  return value as string;
}

function description(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_DESCRIPTION) throw invalid(`description must be a string of at most ${MAX_DESCRIPTION} characters, or null`);
  return value;
}

function eventTypes(value: unknown): EventType[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length === 0 || !value.every(isEventType)) {
    throw invalid(`event_types must be null (every type) or a non-empty list of ${EVENT_TYPES.join(', ')}`);
  }
  return EVENT_TYPES.filter((type) => value.includes(type));
}

function flag(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`${field} must be true or false`);
  return value;
}

function metadata(value: unknown): Record<string, string> {
  const problem = `metadata must be an object of at most ${MAX_METADATA_KEYS} string values of at most ${MAX_METADATA_VALUE} characters`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(problem);
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_KEYS) throw invalid(problem);
  for (const [key, each] of entries) {
    if (key.length === 0 || key.length > MAX_METADATA_KEY || typeof each !== 'string' || each.length > MAX_METADATA_VALUE) throw invalid(problem);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** `whsec_` and the base64 of 24 to 64 bytes, as Standard Webhooks secrets are written. */
function secret(value: unknown, field: string): string {
  const match = typeof value === 'string' ? /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value) : null;
  const bytes = match ? Buffer.from(match[1]!, 'base64').length : 0;
  if (bytes < 24 || bytes > 64) throw invalid(`${field} must be whsec_ followed by the base64 of 24 to 64 random bytes`);
  return value as string;
}

function invalid(message: string): HttpError {
  return new HttpError(400, message);
}
