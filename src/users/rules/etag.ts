import { hash } from 'node:crypto';
import type { UserRow } from './user.js';

/**
 * A user's strong ETag: the MD5 of its stored fields, each string preceded by its length in bytes
 * (-1 for a NULL) so that no two different rows share the text. userEtagSql (db/statements.ts) computes the same hash
 * in MySQL, so a write can be made conditional on it within its one statement.
 */
export function etagOf(row: UserRow): string {
  return quotedTag(etagHash(row));
}

/** The ETag header value of a hash from etagHash. */
export function quotedTag(hash: string): string {
  return `"${hash}"`;
}

/** The hash inside the quotes of etagOf, as userEtagSql (db/statements.ts) yields it. */
export function etagHash(row: UserRow): string {
  const text = `${row.id},${field(row.name)},${field(row.email)},${microseconds(row.created_at)}`;
  // The one-shot hash costs a GET about half a microsecond; createHash().update().digest() about 1.3.
  return hash('md5', text, 'hex');
}

/** A column that tables made by other clients may hold NULL in, whatever UserRow says. */
function field(value: string | null): string {
  return value === null ? '-1,' : `${Buffer.byteLength(value)},${value}`;
}

/** `YYYY-MM-DD HH:MM:SS.ffffff`: mysql2 gives as many decimals as the column has, or none when they are zero. */
function microseconds(time: string | null): string {
  if (time === null) return '';
  return `${time.slice(0, 19)}.${time.slice(20).padEnd(6, '0')}`;
}

/** An If-Match or If-None-Match header: `*` (any current version) or the listed tags. */
export type TagCondition = { any: true } | { tags: readonly string[] };

const ENTITY_TAG = /\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/gy;

/**
 * The tags an If-Match header lists; weak tags (`W/"…"`) never match under its strong comparison and
 * are dropped. Undefined when the header is absent. A header that lists nothing usable matches nothing.
 */
export function ifMatch(header: string | undefined): TagCondition | undefined {
  return header === undefined ? undefined : parseTags(header, false);
}

/** The tags an If-None-Match header lists, weak ones compared by their opaque part (weak comparison). */
export function ifNoneMatch(header: string | undefined): TagCondition | undefined {
  return header === undefined ? undefined : parseTags(header, true);
}

export function tagMatches(condition: TagCondition, etag: string): boolean {
  return 'any' in condition || condition.tags.includes(etag);
}

function parseTags(header: string, keepWeak: boolean): TagCondition {
  const trimmed = header.trim();
  if (trimmed === '*') return { any: true };
  const tags: string[] = [];
  ENTITY_TAG.lastIndex = 0;
  for (let match = ENTITY_TAG.exec(trimmed); match && match[0] !== ''; match = ENTITY_TAG.exec(trimmed)) {
    if (!match[1] || keepWeak) tags.push(match[2]!);
  }
  return { tags };
}
