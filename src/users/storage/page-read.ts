import type { Database } from '../../db/database.js';
import { StorageError } from '../../errors/storage-error.js';
import type { ListRequest, Position } from '../rules/list-query.js';
import { UserArrayBuilder, type ListRow } from './list-layout.js';
import { findStatement } from './list-statements.js';
import type { Deadline } from '../../db/deadline.js';

/** A page of the list: the JSON array, and where the next page starts when users follow it. */
export interface UserPage {
  body: Buffer;
  /** The last user on the page, present exactly when more users follow. */
  next?: Position;
}

type PageRow = ListRow & { id: Buffer; k?: Buffer | null };

/** A page of 1000 users fits in one chunk. */
const PAGE_CHUNK_BYTES = 1024 * 1024;

/**
 * A page of the users a request asks for, as a JSON array assembled like the whole list (rows as
 * bytes, decoded only when they need escaping: mysql2 decoding a page's rows cost most of its
 * CPU). One row beyond the page is read to tell whether more users follow.
 */
export async function readUserPage(db: Database, request: ListRequest & { page: { limit: number } }, deadline?: Deadline): Promise<UserPage> {
  const { sql, values } = findStatement(request);
  const rows = await db.readUndecoded<PageRow[]>(sql, values, deadline);
  const { limit } = request.page;
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
  return rows.length > limit ? { body, next: positionOf(rows[shown - 1]!, request) } : { body };
}

function positionOf(row: PageRow, request: ListRequest): Position {
  const id = Number(row.id.toString('latin1'));
  if (request.sort.field === 'id') return { value: id, id };
  return { value: row.k == null ? null : row.k.toString('utf8'), id };
}
