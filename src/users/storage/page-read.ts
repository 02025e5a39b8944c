import type { Database } from '../../db/database.js';
import { StorageError } from '../../errors/storage-error.js';
import { listStatements, UserArrayBuilder, type ListRow } from './list-layout.js';

/** A page of the list: the JSON array, the last id on it (0 when empty), and whether users follow it. */
export interface UserPage {
  body: Buffer;
  lastId: number;
  more: boolean;
}

/** A page of 1000 users fits in one chunk. */
const PAGE_CHUNK_BYTES = 1024 * 1024;

/**
 * Up to `limit` users with an id above `after`, by id, as a JSON array assembled like the whole
 * list (rows as bytes, decoded only when they need escaping: mysql2 decoding a page's rows cost
 * most of its CPU). One row beyond the page is read to tell whether more users follow.
 */
export async function readUserPage(db: Database, after: number, limit: number): Promise<UserPage> {
  const array = new UserArrayBuilder(PAGE_CHUNK_BYTES);
  let shown = 0;
  let lastId: Buffer | undefined;
  let more = false;
  const encoder = {
    add(row: ListRow & { id: Buffer }): Buffer | undefined {
      if (shown === limit) {
        more = true;
        return undefined;
      }
      shown++;
      lastId = row.id;
      return array.add(row.json);
    },
    end: () => array.end(),
  };
  const chunks = await db.stream(listStatements.page, [after, limit + 1], encoder, db.deadlineSince(performance.now()));
  let parts: Buffer[];
  try {
    parts = (await chunks.toArray()) as Buffer[];
  } catch (error) {
    throw new StorageError(error);
  }
  const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  return { body, lastId: lastId === undefined ? 0 : Number((lastId as Buffer).toString()), more };
}
