import { HttpError } from '../../errors/http-error.js';
import { fieldMessages, messages } from '../../errors/messages.js';
import { isIdSegment, MAX_USER_ID } from './id.js';

const MAX_PAGE_SIZE = 1000;

export interface PageRequest {
  limit: number;
  /** Users with an id above this one; 0 for the first page. */
  after: number;
}

/**
 * The page a list query asks for, or undefined when it has no `limit` (the whole list). Each
 * parameter must appear at most once, as a canonical decimal integer (no sign, no leading zero).
 */
export function pageRequest(query: string): PageRequest | undefined {
  if (!query.includes('limit') && !query.includes('after')) return undefined;
  const params = new URLSearchParams(query);
  const limit = single(params, 'limit');
  const after = single(params, 'after');
  if (limit === undefined && after === undefined) return undefined;
  if (limit === undefined) throw new HttpError(400, messages.afterWithoutLimit);
  if (limit === null || !isIdSegment(limit) || Number(limit) < 1 || Number(limit) > MAX_PAGE_SIZE) {
    throw new HttpError(400, fieldMessages.limitRange(MAX_PAGE_SIZE));
  }
  if (after === undefined) return { limit: Number(limit), after: 0 };
  if (after === null || !isIdSegment(after)) throw new HttpError(400, messages.afterNotInteger);
  // No id is above the column's maximum, so a larger `after` asks for the empty page at the end.
  return { limit: Number(limit), after: Math.min(Number(after), MAX_USER_ID) };
}

/** The parameter's only value; undefined when absent, null when given more than once. */
function single(params: URLSearchParams, name: string): string | null | undefined {
  const values = params.getAll(name);
  if (values.length === 0) return undefined;
  return values.length === 1 ? values[0]! : null;
}

/** The Link header to the page after one that ended at `lastId`; the client adds its own `pwd`. */
export function nextPageLink(limit: number, lastId: number): string {
  return `</api/users?limit=${limit}&after=${lastId}>; rel="next"`;
}
