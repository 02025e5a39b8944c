import type { Database } from '../../db/database.js';
import { StorageError } from '../../errors/storage-error.js';
import { sql } from '../../db/statements.js';
import { UserListChunks } from './list-json.js';

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
export function readUserPage(db: Database, after: number, limit: number): Promise<UserPage> {
  return new Promise((resolve, reject) => {
    const list = new UserListChunks(PAGE_CHUNK_BYTES);
    const chunks: Buffer[] = [];
    let shown = 0;
    let lastId: Buffer | undefined;
    let more = false;
    let broken = false;
    const stream = db.stream<{ id: Buffer; json: Buffer }>(sql.listUsersPageAsJson, {
      row(row) {
        if (broken) return;
        if (shown === limit) {
          more = true;
          return;
        }
        shown++;
        lastId = row.id;
        try {
          const full = list.add(row.json);
          if (full) chunks.push(full);
        } catch (error) {
          broken = true;
          stream.abort();
          reject(new StorageError(error));
        }
      },
      end() {
        chunks.push(list.end());
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        resolve({ body, lastId: lastId === undefined ? 0 : Number(lastId.toString()), more });
      },
      fail: reject,
    }, db.deadlineSince(performance.now()), [after, limit + 1]);
  });
}
