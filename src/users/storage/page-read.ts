import type { Database } from '../../db/database.js';
import { StorageError } from '../../errors/storage-error.js';
import type { ListRow } from './list-chunks.js';
import { listStatements, UserArrayBuilder } from './list-layout.js';

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
  const rows = await db.stream(listStatements.page, [after, limit + 1], db.deadlineSince(performance.now()));
  const array = new UserArrayBuilder(PAGE_CHUNK_BYTES);
  const chunks: Buffer[] = [];
  let shown = 0;
  let lastId: Buffer | undefined;
  let more = false;
  try {
    for await (const row of rows as AsyncIterable<ListRow & { id: Buffer }>) {
      if (shown === limit) {
        more = true;
        continue;
      }
      shown++;
      lastId = row.id;
      const full = array.add(row.json);
      if (full) chunks.push(full);
    }
  } catch (error) {
    throw new StorageError(error);
  }
  chunks.push(array.end());
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  return { body, lastId: lastId === undefined ? 0 : Number(lastId.toString()), more };
}
