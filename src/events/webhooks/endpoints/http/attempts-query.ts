import { HttpError } from '../../../../errors/http-error.js';
import type { AttemptQuery } from '../endpoint-history.js';
import { isEventType, isoTime, utc } from './endpoint-input.js';

const KNOWN = ['status', 'event_type', 'after', 'before', 'limit', 'cursor'];
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;

/** An attempts page's filters from the query string; anything unknown or malformed is a 400 naming it. */
export function attemptQuery(query: string): AttemptQuery {
  const params = new URLSearchParams(query);
  for (const name of params.keys()) {
    if (!KNOWN.includes(name)) throw invalid(`unknown parameter "${name.slice(0, 50)}": the parameters are ${KNOWN.join(', ')}`);
    if (params.getAll(name).length > 1) throw invalid(`${name} is given more than once`);
  }
  const found: AttemptQuery = { limit: DEFAULT_LIMIT };
  const status = params.get('status');
  if (status !== null) {
    if (status !== 'succeeded' && status !== 'failed') throw invalid('status must be succeeded or failed');
    found.status = status;
  }
  const type = params.get('event_type');
  if (type !== null) {
    if (!isEventType(type)) throw invalid('event_type must be user.created, user.updated or user.deleted');
    found.eventType = type;
  }
  for (const name of ['after', 'before'] as const) {
    const value = params.get(name);
    if (value !== null) found[name] = utc(isoTime(value, name));
  }
  const limit = params.get('limit');
  if (limit !== null) {
    if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) throw invalid(`limit must be a whole number from 1 to ${MAX_LIMIT}`);
    found.limit = Number(limit);
  }
  const cursor = params.get('cursor');
  if (cursor !== null) {
    if (!/^[1-9]\d{0,18}$/.test(cursor)) throw invalid('cursor must be the value a Link header gave');
    found.cursor = Number(cursor);
  }
  return found;
}

/** The query of the next page: the same filters, and the cursor after the last attempt shown. */
export function nextPageQuery(query: string, cursor: number): string {
  const params = new URLSearchParams(query);
  params.set('cursor', String(cursor));
  return params.toString();
}

function invalid(message: string): HttpError {
  return new HttpError(400, message);
}
