import type { ListCursors } from './list-cursor.js';
import { pagesById, sortParameter, type ListPage, type ListRequest, type Position } from './list-query.js';

/**
 * The Link header to the page after `last`: the same list (limit, sort, filters) from where this
 * page ended, as `after=<id>` when sorted by id (the contract's paging) and a cursor otherwise.
 * It never carries `pwd`: the client adds its own.
 */
export function nextPageLink(request: ListRequest & { page: ListPage }, last: Position, cursors: ListCursors): string {
  const { sort, filter } = request;
  const parts = [`limit=${request.page.limit}`];
  const byId = pagesById(sort);
  if (!byId) parts.push(`sort=${sortParameter(sort)}`);
  for (const name of ['email', 'q', 'prefix'] as const) {
    const value = filter[name];
    if (value !== undefined) parts.push(`${name}=${encodeURIComponent(value)}`);
  }
  parts.push(byId ? `after=${last.id}` : `cursor=${cursors.make(request, last)}`);
  return `</api/users?${parts.join('&')}>; rel="next"`;
}
