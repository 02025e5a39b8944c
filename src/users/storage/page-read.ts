import type { Database } from '../../db/database.js';
import { StorageError } from '../../errors/storage-error.js';
import { sql } from '../../db/statements.js';
import { asUserJson, CLOSE, COMMA, OPEN, type UserJsonRow } from './list-chunks.js';

/** A page of the list: the JSON array, the last id on it (0 when empty), and whether users follow it. */
export interface UserPage {
  body: Buffer;
  lastId: number;
  more: boolean;
}

/**
 * Up to `limit` users with an id above `after`, by id, as a JSON array of the objects the database
 * wrote. One row beyond the page is read to tell whether more users follow.
 */
export async function readUserPage(db: Database, after: number, limit: number): Promise<UserPage> {
  const rows = await db.stream(sql.listUsersPageAsJson, [after, limit + 1], db.deadlineSince(performance.now()));
  const parts: Buffer[] = [OPEN];
  let shown = 0;
  let lastId: Buffer | undefined;
  let more = false;
  try {
    for await (const row of rows as AsyncIterable<UserJsonRow & { id: Buffer }>) {
      if (shown === limit) {
        more = true;
        continue;
      }
      if (shown++ > 0) parts.push(COMMA);
      parts.push(asUserJson(row.json));
      lastId = row.id;
    }
  } catch (error) {
    throw new StorageError(error);
  }
  parts.push(CLOSE);
  return { body: Buffer.concat(parts), lastId: lastId === undefined ? 0 : Number(lastId.toString()), more };
}
