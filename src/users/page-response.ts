import type { ServerResponse } from 'node:http';
import { sendJson } from '../http/respond.js';
import { nextPageLink, type PageRequest } from './page-query.js';
import type { UserStore } from './store.js';
import { userJson } from './user.js';

/**
 * One page of the list as a JSON array. One user more than the page holds is read, so the `next`
 * link is sent exactly when more users follow.
 */
export async function sendUserPage(res: ServerResponse, store: UserStore, { limit, after }: PageRequest): Promise<void> {
  const rows = await store.page(after, limit + 1);
  const shown = rows.length > limit ? rows.slice(0, limit) : rows;
  const body = `[${shown.map(userJson).join(',')}]`;
  sendJson(res, 200, body, rows.length > limit ? { Link: nextPageLink(limit, shown[limit - 1]!.id) } : undefined);
}
