import { HttpError } from '../../errors/http-error.js';
import { fieldMessages, messages } from '../../errors/messages.js';
import { isIdSegment, MAX_USER_ID } from './id.js';
import type { ListCursors } from './list-cursor.js';
import {
  DEFAULT_SORT,
  MAX_FIND_LENGTH,
  MAX_PAGE_SIZE,
  pagesById,
  sortFields,
  type ListFilter,
  type ListRequest,
  type Position,
  type SortField,
  type SortOrder,
} from './list-query.js';

/** A query that may name a list parameter; anything else is the plain list, decided without parsing. */
const MAYBE_LIST_PARAMETER = /(?:^|&)(?:limit|after|cursor|sort|email|q|prefix)(?:[=&]|$)|%/;
const EXACT_COUNT = /(?:^|,)[ \t]*count[ \t]*=[ \t]*"?exact"?[ \t]*(?:[;,]|$)/i;

/**
 * What a list query asks for, or undefined for the contract's plain list (no list parameter and
 * no count). Each parameter may appear once; unknown parameters are ignored.
 */
export function listRequest(query: string, prefer: string | string[] | undefined, cursors: ListCursors): ListRequest | undefined {
  const count = prefer !== undefined && EXACT_COUNT.test(typeof prefer === 'string' ? prefer : prefer.join(','));
  if (!count && !MAYBE_LIST_PARAMETER.test(query)) return undefined;
  const params = new URLSearchParams(query);
  const get = (name: string): string | undefined => single(params, name);
  // A repeated limit or after keeps the answer paging has always given it.
  const limit = single(params, 'limit', fieldMessages.limitRange(MAX_PAGE_SIZE));
  const after = single(params, 'after', messages.afterNotInteger);
  const cursor = get('cursor');
  const sort = sortOrder(get('sort'));
  const filter: ListFilter = {};
  for (const name of ['email', 'q', 'prefix'] as const) {
    const value = get(name);
    if (value !== undefined) filter[name] = findText(name, value);
  }
  const plain = filter.email === undefined && filter.q === undefined && filter.prefix === undefined;
  if (limit === undefined) {
    if (after !== undefined) throw new HttpError(400, messages.afterWithoutLimit);
    if (cursor !== undefined) throw new HttpError(400, messages.cursorWithoutLimit);
    return plain && pagesById(sort) && !count ? undefined : { filter, sort, count };
  }
  if (!isIdSegment(limit) || Number(limit) < 1 || Number(limit) > MAX_PAGE_SIZE) {
    throw new HttpError(400, fieldMessages.limitRange(MAX_PAGE_SIZE));
  }
  const request: ListRequest = { filter, sort, page: { limit: Number(limit) }, count };
  if (after !== undefined && cursor !== undefined) throw new HttpError(400, messages.afterWithCursor);
  if (after !== undefined) request.page!.after = afterId(after, sort);
  if (cursor !== undefined) request.page!.after = cursors.read(request, cursor);
  return request;
}

/** The parameter's only value; undefined when absent. */
function single(params: URLSearchParams, name: string, repeated = fieldMessages.repeated(name)): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new HttpError(400, repeated);
  return values[0];
}

function sortOrder(raw: string | undefined): SortOrder {
  if (raw === undefined) return DEFAULT_SORT;
  const descending = raw.startsWith('-');
  const field = descending ? raw.slice(1) : raw;
  if (!(sortFields as readonly string[]).includes(field)) throw new HttpError(400, fieldMessages.sortField(sortFields));
  return { field: field as SortField, descending };
}

function findText(name: string, value: string): string {
  const length = [...value].length;
  if (length < 1 || length > MAX_FIND_LENGTH) throw new HttpError(400, fieldMessages.lengthRange(name, MAX_FIND_LENGTH));
  return value;
}

/** `after`: the id sort's position, a plain id, as the contract's paging has it. */
function afterId(after: string, sort: SortOrder): Position {
  if (!pagesById(sort)) throw new HttpError(400, messages.afterNeedsIdSort);
  if (!isIdSegment(after)) throw new HttpError(400, messages.afterNotInteger);
  // No id is above the column's maximum, so a larger `after` asks for the empty page at the end.
  const id = Math.min(Number(after), MAX_USER_ID);
  return { value: id, id };
}
