import { userJson } from '../rules/user.js';

/**
 * The list's rows as the database sends them, and the parser that depends on their layout: the
 * SQL that writes a row and the code that reads it belong together (see ListRow below). The
 * statements that select them are in list-statements.ts.
 */

/** The API's user object up to the value of created_at, name and email unescaped, as CONCAT arguments. */
const rawUserHead = `'{"id":', id, ',"name":"', name, '","email":"', email, '","created_at":'`;
/** The whole user object, escaped and formatted by the database. */
const completeUser =
  `CONCAT('{"id":', id, ',"name":', IFNULL(JSON_QUOTE(name), 'null'), ',"email":', IFNULL(JSON_QUOTE(email), 'null'), ` +
  `',"created_at":', IFNULL(CONCAT('"', REPLACE(LEFT(created_at, 19), ' ', 'T'), '.000Z"'), 'null'), '}')`;
/**
 * One user of the list in the layout ListRow describes. COALESCE evaluates its next form only when
 * the one before is NULL: the second for a NULL created_at, the third (complete JSON) for a NULL
 * name or email.
 */
export const listRow =
  `COALESCE(CONCAT(${rawUserHead}, '"', created_at, '"', CHAR_LENGTH(name)), ` +
  `CONCAT(${rawUserHead}, 'null}', CHAR_LENGTH(name)), ${completeUser})`;

/** A row of a list statement (list-statements.ts): one user in the layout ListRow describes. */
export interface ListRow {
  json: Buffer;
}

/**
 * The users list as one JSON array, assembled from the rows of the list statements as bytes, in
 * chunks of about `chunkBytes` (LIST_CHUNK_BYTES unless told). Quoting every name and email and
 * formatting every time would take the database about as long again as reading the rows, so it
 * sends them raw, and a row is decoded only when a name or email holds bytes JSON must escape.
 * See ListRow.
 */
export class UserArrayBuilder {
  private chunk: Buffer;
  private used = 1;
  private rows = 0;
  /** Chunks already sent, to be filled again instead of allocating new ones. */
  private readonly spares: Buffer[] = [];

  constructor(private readonly chunkBytes = LIST_CHUNK_BYTES) {
    this.chunk = Buffer.allocUnsafe(Math.min(FIRST_CHUNK_BYTES, chunkBytes));
    this.chunk[0] = OPEN_BRACKET;
  }

  /**
   * Adds one user; returns the chunk it filled, if any, to be sent before the next one. Throws if
   * the row is not laid out as the list statements lay it out.
   */
  add(row: Buffer): Buffer | undefined {
    const countAt = countStart(row);
    const time = countAt === row.length ? COMPLETE : timeOf(row, countAt);
    const escaped = time === ESCAPE ? Buffer.from(userJson(userOf(row, countAt))) : undefined;
    const full = this.makeRoom((escaped ?? row).length + ROW_GROWTH);
    if (this.rows++ > 0) this.chunk[this.used++] = COMMA;
    if (escaped) {
      this.chunk.set(escaped, this.used);
      this.used += escaped.length;
    } else {
      this.used = writeRaw(row, countAt, time, this.chunk, this.used);
    }
    return full;
  }

  /**
   * Takes back a chunk `add` or `end` returned once its bytes have been sent, so that a long list
   * keeps filling the same few chunks instead of leaving one behind for the garbage collector per
   * 256 KiB sent (a 200 000-user list held some 10 MB of them at its peak).
   */
  reuse(sent: Buffer): void {
    if (sent.byteOffset === 0 && sent.buffer.byteLength === this.chunkBytes) this.spares.push(Buffer.from(sent.buffer, 0, this.chunkBytes));
  }

  /** The rest of the array, its closing bracket included. */
  end(): Buffer {
    this.makeRoom(1);
    this.chunk[this.used++] = CLOSE_BRACKET;
    return this.chunk.subarray(0, this.used);
  }

  /**
   * Small lists are common, so a chunk starts small and grows up to chunkBytes; a full one is
   * returned and a new one begins. A single row larger than chunkBytes gets a chunk of its own size.
   */
  private makeRoom(bytes: number): Buffer | undefined {
    if (this.used + bytes <= this.chunk.length) return undefined;
    if (this.chunk.length < this.chunkBytes) {
      const grown = Buffer.allocUnsafe(Math.max(Math.min(this.chunk.length * 2, this.chunkBytes), this.used + bytes));
      this.chunk.copy(grown, 0, 0, this.used);
      this.chunk = grown;
      return undefined;
    }
    const full = this.chunk.subarray(0, this.used);
    this.chunk = (bytes <= this.chunkBytes && this.spares.pop()) || Buffer.allocUnsafe(Math.max(this.chunkBytes, bytes));
    this.used = 0;
    return full;
  }
}

/**
 * Each chunk is one write to the socket: at 256 KiB a million-user listing took the service about
 * a fifth less CPU than at 64 KiB (fewer writes, pauses and resumes), and at 1 MiB no less again.
 */
export const LIST_CHUNK_BYTES = 256 * 1024;
/** Below Node's pool limit: a small list costs no allocation of its own. */
const FIRST_CHUNK_BYTES = 2048;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE_BELOW = 0x20;
const T = 0x54;
const ZERO = 0x30;
const ID_START = '{"id":'.length;
const NAME_OPEN = ',"name":"'.length;
const NAME_TO_EMAIL = '","email":"'.length;
const EMAIL_CLOSE_TO_TIME_QUOTE = '","created_at":'.length;
const EMAIL_CLOSE_TO_NULL_END = '","created_at":null'.length;
const TIME_QUOTE_TO_SPACE = '"YYYY-MM-DD'.length;
const TIME_QUOTE_TO_SECONDS_END = '"YYYY-MM-DD HH:MM:SS'.length;
/** What follows the seconds: no fractions (as timestampJson), UTC, then the string and object end. */
const TIME_END = Buffer.from('.000Z"}');
/** Sent raw, a row grows by at most a separator and TIME_END. */
const ROW_GROWTH = 1 + TIME_END.length;

/*
 * ListRow: each row of a list statement is one of
 *   {"id":ID,"name":"NAME","email":"EMAIL","created_at":"TIME"COUNT
 *   {"id":ID,"name":"NAME","email":"EMAIL","created_at":null}COUNT
 *   a complete user object, with no COUNT (only when name or email is NULL)
 * NAME and EMAIL are the stored text, unescaped; COUNT is NAME's length in characters, which
 * tells where NAME ends whatever it holds. TIME is the TIMESTAMP's text, `YYYY-MM-DD HH:MM:SS`
 * (fractions possibly after it), and becomes `"YYYY-MM-DDTHH:MM:SS.000Z"` as in timestampJson.
 */
/** timeOf's answers besides the index of the quote that opens TIME. */
const NULL_TIME = -1;
const ESCAPE = -2;
const COMPLETE = -3;

/** Where COUNT begins: the row's length when it has none (a complete object). */
function countStart(row: Buffer): number {
  let at = row.length;
  while (at > 0 && row[at - 1]! - ZERO >>> 0 < 10) at--;
  return at;
}

function countOf(row: Buffer, countAt: number): number {
  let count = 0;
  for (let at = countAt; at < row.length; at++) count = count * 10 + row[at]! - ZERO;
  return count;
}

/**
 * Where TIME's opening quote is (NULL_TIME when created_at is null), or ESCAPE when NAME or EMAIL
 * holds something JSON must escape, so that the row cannot be sent as it is. Runs for every row:
 * one pass over the bytes, no allocation (userOf is the careful version).
 */
function timeOf(row: Buffer, countAt: number): number {
  let at = ID_START;
  while (at < row.length && row[at] !== COMMA) at++;
  at += NAME_OPEN;
  for (let left = countOf(row, countAt); left > 0; left--) {
    const byte = row[at]!;
    if (byte < 0x80) {
      if (byte < SPACE_BELOW || byte === QUOTE || byte === BACKSLASH) return ESCAPE;
      at++;
    } else {
      at += byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    }
  }
  if (row[at] !== QUOTE) return ESCAPE;
  // EMAIL ends where the layout after it begins, found from the row's end: TIME holds no quote.
  let time = NULL_TIME;
  let emailEnd: number;
  if (row[countAt - 1] === QUOTE) {
    time = countAt - 1 - TIME_QUOTE_TO_SECONDS_END;
    if (row[time] !== QUOTE) {
      time = countAt - 2;
      while (time > 0 && row[time] !== QUOTE) time--;
    }
    emailEnd = time - EMAIL_CLOSE_TO_TIME_QUOTE;
  } else {
    emailEnd = countAt - 1 - EMAIL_CLOSE_TO_NULL_END;
  }
  for (at += NAME_TO_EMAIL; at < emailEnd; at++) {
    const byte = row[at]!;
    if (byte < SPACE_BELOW || byte === QUOTE || byte === BACKSLASH) return ESCAPE;
  }
  return at === emailEnd ? time : ESCAPE;
}

/** Copies the row, then finishes created_at in place; returns where the user object ends. */
function writeRaw(row: Buffer, countAt: number, time: number, out: Buffer, at: number): number {
  // One native copy of the whole row is far cheaper than copying a slice of it; bytes past the
  // object's end are overwritten by the next row or left beyond `used`.
  out.set(row, at);
  if (time < 0) return at + countAt;
  out[at + time + TIME_QUOTE_TO_SPACE] = T;
  const secondsEnd = at + time + TIME_QUOTE_TO_SECONDS_END;
  for (let i = 0; i < TIME_END.length; i++) out[secondsEnd + i] = TIME_END[i]!;
  return secondsEnd + TIME_END.length;
}

/** Where `characters` UTF-8 characters starting at `at` end. */
function skipCharacters(row: Buffer, at: number, characters: number): number {
  for (let left = characters; left > 0; left--) {
    const lead = row[at]!;
    at += lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  }
  return at;
}

/** The row decoded, for userJson to escape (the rare path): throws unless the layout holds. */
function userOf(row: Buffer, countAt: number) {
  let idEnd = ID_START;
  while (idEnd < row.length && row[idEnd] !== COMMA) idEnd++;
  const nameStart = idEnd + NAME_OPEN;
  const nameEnd = skipCharacters(row, nameStart, countOf(row, countAt));
  let timeQuote = -1;
  let emailEnd: number;
  if (row[countAt - 1] === QUOTE) {
    // TIME holds no quote: the one before its closing quote opens it.
    timeQuote = countAt - 2;
    while (timeQuote > 0 && row[timeQuote] !== QUOTE) timeQuote--;
    emailEnd = timeQuote - EMAIL_CLOSE_TO_TIME_QUOTE;
  } else {
    emailEnd = countAt - 1 - EMAIL_CLOSE_TO_NULL_END;
  }
  const emailStart = nameEnd + NAME_TO_EMAIL;
  if (row[nameEnd] !== QUOTE || row[emailStart - 1] !== QUOTE || row[emailEnd] !== QUOTE || emailEnd < emailStart) {
    throw new Error('A list row does not have the layout the list statements give it');
  }
  return {
    id: Number(row.toString('latin1', ID_START, idEnd)),
    name: row.toString('utf8', nameStart, nameEnd),
    email: row.toString('utf8', emailStart, emailEnd),
    created_at: timeQuote < 0 ? null : row.toString('latin1', timeQuote + 1, countAt - 1),
  };
}
