import type { ServerResponse } from 'node:http';
import { sendJson } from '../../http/respond.js';
import type { ListCursors } from '../rules/list-cursor.js';
import { nextPageLink } from '../rules/list-link.js';
import { pagesById, type ListRequest } from '../rules/list-query.js';
import type { UserStore } from '../storage/store.js';
import { streamList } from './list-response.js';
import type { SpanContext } from '../../tracing/trace-context.js';

/**
 * The users a list request asks for: one page, with a `next` Link exactly when more users follow,
 * or all of them streamed. With `Prefer: count=exact`, the number of users matching the filter
 * (not the page) is counted by a statement of its own, taken beside the list's.
 */
export async function sendFoundUsers(res: ServerResponse, store: UserStore, request: ListRequest, cursors: ListCursors, span?: SpanContext): Promise<void> {
  const counting = request.count ? store.count(request.filter, span) : undefined;
  const { page } = request;
  if (page) {
    const [found, total] = await Promise.all([store.page({ ...request, page }, span), counting]);
    const headers = countHeaders(total);
    if (found.next) headers.Link = nextPageLink({ ...request, page }, found.next, cursors);
    return sendJson(res, 200, found.body, headers);
  }
  if (isEmailLookup(request)) {
    const body = await store.lookUpEmail(request.filter.email, span);
    if (body) return sendJson(res, 200, body);
  }
  const total = await counting;
  await streamList(res, (clientGone) => store.find(request, clientGone, span), countHeaders(total));
}

/** The commonest finding, a user by email, is answered as a read by id is: coalesced with others. */
function isEmailLookup(request: ListRequest): request is ListRequest & { filter: { email: string } } {
  const { filter, sort, page, count } = request;
  return filter.email !== undefined && filter.q === undefined && filter.prefix === undefined && pagesById(sort) && !page && !count;
}

function countHeaders(total: number | undefined): Record<string, string> {
  return total === undefined ? {} : { 'X-Total-Count': String(total), 'Preference-Applied': 'count=exact' };
}
