import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../../errors/http-error.js';
import { messages } from '../../errors/messages.js';
import { MAX_USER_ID } from './id.js';
import { MAX_FIND_LENGTH, sortParameter, type ListRequest, type Position } from './list-query.js';

const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 1024;
/** created_at as the list statements give it for a cursor: six decimals, whatever the column's precision. */
const TIME_VALUE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

/**
 * The opaque position of a page sorted by anything but id: the last user's sort value and id,
 * signed with a key only the service has, over the list it belongs to (its sort and filters).
 * A cursor the service did not make, or made for another list, is refused; so no value a
 * client invents reaches a statement. The key comes from the list password, which every worker
 * and every instance serving the same clients shares; changing the password ends old cursors.
 */
export class ListCursors {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update('users list cursor\0').update(secret).digest();
  }

  make(request: ListRequest, last: Position): string {
    const payload = Buffer.from(JSON.stringify([last.value, last.id])).toString('base64url');
    return `${payload}.${this.mac(request, payload).toString('base64url')}`;
  }

  /** The position a cursor names; a 400 naming `cursor` unless this service made it for this list. */
  read(request: ListRequest, cursor: string): Position {
    const dot = cursor.indexOf('.');
    if (dot < 0 || cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor;
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(request, payload))) throw invalidCursor;
    const position = parsePosition(Buffer.from(payload, 'base64url').toString('utf8'), request);
    if (!position) throw invalidCursor;
    return position;
  }

  private mac(request: ListRequest, payload: string): Buffer {
    const { sort, filter } = request;
    const list = JSON.stringify([sortParameter(sort), filter.email ?? null, filter.q ?? null, filter.prefix ?? null, payload]);
    return createHmac('sha256', this.key).update(list).digest().subarray(0, MAC_BYTES);
  }
}

const invalidCursor = new HttpError(400, messages.invalidCursor);

/** The signed payload, checked again: a key that leaked must still not let a malformed value through. */
function parsePosition(json: string, request: ListRequest): Position | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [value, id] = parsed as [unknown, unknown];
  if (!Number.isSafeInteger(id) || (id as number) < 0 || (id as number) > MAX_USER_ID) return undefined;
  return valueFits(value, request.sort.field) ? { value: value as Position['value'], id: id as number } : undefined;
}

function valueFits(value: unknown, field: ListRequest['sort']['field']): boolean {
  if (field === 'id') return typeof value === 'number';
  if (value === null) return true;
  if (typeof value !== 'string') return false;
  return field === 'created_at' ? TIME_VALUE.test(value) : value.length <= MAX_FIND_LENGTH * 2;
}
