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
  const rows = await db.readUndecoded<Array<ListRow & { id: Buffer }>>(listStatements.page, [after, limit + 1]);
  const shown = Math.min(rows.length, limit);
  const array = new UserArrayBuilder(PAGE_CHUNK_BYTES);
  const parts: Buffer[] = [];
  try {
    for (let i = 0; i < shown; i++) {
      const full = array.add(rows[i]!.json);
      if (full) parts.push(full);
    }
  } catch (error) {
    throw new StorageError(error);
  }
  parts.push(array.end());
  const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  return { body, lastId: shown === 0 ? 0 : Number(rows[shown - 1]!.id.toString()), more: rows.length > limit };
}
