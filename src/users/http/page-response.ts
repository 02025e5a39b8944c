import type { ServerResponse } from 'node:http';
import { sendJson } from '../../http/respond.js';
import { nextPageLink, type PageRequest } from '../rules/page-query.js';
import type { UserStore } from '../storage/store.js';

/** One page of the list as a JSON array, with a `next` link exactly when more users follow. */
export async function sendUserPage(res: ServerResponse, store: UserStore, { limit, after }: PageRequest): Promise<void> {
  const page = await store.page(after, limit);
  sendJson(res, 200, page.body, page.more ? { Link: nextPageLink(limit, page.lastId) } : undefined);
}
