import type { ListFilter, ListRequest, Position, SortField, SortOrder } from '../rules/list-query.js';
import { memoized } from '../../db/statement-shapes.js';
import { listRow } from './list-layout.js';

/**
 * The statements that read the list, in rows laid out as list-layout.ts describes. A request's
 * statement is built from its shape (which filters, which sort, whether paged); its values are
 * always bound. Every order ends with the id, so it is total, and a page starts after the last
 * row of the one before by comparing with that row's sort value and id (keyset, never offset):
 * the indexes on name, email and created_at hold the id too, so each page is one range read.
 */

export interface Statement {
  sql: string;
  values: unknown[];
}

export const listStatements = {
  /** Every user by id, one row (`json`) per user. */
  all: `SELECT ${listRow} AS json FROM users ORDER BY id`,
} as const;

/** The most users one email lookup of a batch holds; past it (one more is read to tell) the lookup is streamed. */
export const EMAIL_LOOKUP_ROWS = 1000;

/**
 * `count` email lookups in one statement: the emails, each tagged with its place (`n`) among the
 * values, joined to the users by the email index, so each is one index read. Reading each email's
 * ids in a branch of its own (a UNION of limited subqueries) cost MariaDB about 1.3 times the CPU
 * per lookup in batches of 16. The whole statement holds at most EMAIL_LOOKUP_ROWS + 1 rows per
 * email; a result that reaches that may have cut some email's users short (see EmailLookups).
 */
export const emailLookups = memoized((count) => {
  const wanted = Array.from({ length: count }, (_, n) => (n === 0 ? 'SELECT 0 AS n, ? AS address' : `SELECT ${n}, ?`)).join(' UNION ALL ');
  return `SELECT k.n, id, ${listRow} AS json FROM (${wanted}) AS k JOIN users ON email = k.address LIMIT ${emailLookupLimit(count)}`;
});

/** The most rows the statement of `count` email lookups returns. */
export function emailLookupLimit(count: number): number {
  return count * (EMAIL_LOOKUP_ROWS + 1);
}

/** A page's sort value, as a cursor carries it: created_at to the microsecond, whatever the column's precision. */
const sortValue: Record<SortField, string> = {
  id: 'id',
  name: 'name',
  email: 'email',
  created_at: "DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s.%f')",
};

/**
 * The users a request asks for, in its order: all of them (one `json` column per row), or a page
 * of `limit` plus one more row that tells whether another page follows (with `id`, and `k`, the
 * sort value, unless sorted by id).
 */
export function findStatement(request: ListRequest): Statement {
  const { sort, page } = request;
  const values: unknown[] = [];
  const conditions = filterConditions(request.filter, values);
  if (page?.after) conditions.push(positionCondition(sort, page.after, values));
  const where = whereClause(conditions);
  const order = ` ORDER BY ${orderBy(sort)}`;
  if (!page) return { sql: `SELECT ${listRow} AS json FROM users${where}${order}`, values };
  values.push(page.limit + 1);
  const key = sort.field === 'id' ? '' : `${sortValue[sort.field]} AS k, `;
  return { sql: `SELECT id, ${key}${listRow} AS json FROM users${where}${order} LIMIT ?`, values };
}

/** How many users match the filter (`total`). */
export function countStatement(filter: ListFilter): Statement {
  const values: unknown[] = [];
  const where = whereClause(filterConditions(filter, values));
  return { sql: `SELECT COUNT(*) AS total FROM users${where}`, values };
}

function whereClause(conditions: string[]): string {
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}

function filterConditions(filter: ListFilter, values: unknown[]): string[] {
  const conditions: string[] = [];
  if (filter.email !== undefined) {
    conditions.push('email = ?');
    values.push(filter.email);
  }
  if (filter.q !== undefined) {
    const pattern = `%${likeLiteral(filter.q)}%`;
    conditions.push(`(name LIKE ? ESCAPE '!' OR email LIKE ? ESCAPE '!')`);
    values.push(pattern, pattern);
  }
  if (filter.prefix !== undefined) {
    const pattern = `${likeLiteral(filter.prefix)}%`;
    conditions.push(`(name LIKE ? ESCAPE '!' OR email LIKE ? ESCAPE '!')`);
    values.push(pattern, pattern);
  }
  return conditions;
}

/** The text as a LIKE pattern that matches it literally: `%` and `_` are not wildcards here. */
function likeLiteral(text: string): string {
  return text.replace(/[!%_]/g, '!$&');
}

function orderBy({ field, descending }: SortOrder): string {
  const direction = descending ? ' DESC' : '';
  return field === 'id' ? `id${direction}` : `${field}${direction}, id${direction}`;
}

/**
 * The rows after `position` in the sort order. NULL sorts first ascending and last descending,
 * as MariaDB orders it; name, email and created_at may be NULL in tables written by other clients.
 */
function positionCondition({ field, descending }: SortOrder, { value, id }: Position, values: unknown[]): string {
  const beyond = descending ? '<' : '>';
  if (field === 'id') {
    values.push(id);
    return `id ${beyond} ?`;
  }
  if (value === null) {
    values.push(id);
    return descending ? `(${field} IS NULL AND id < ?)` : `(${field} IS NOT NULL OR id > ?)`;
  }
  values.push(value, value, id);
  const later = `${field} ${beyond} ? OR (${field} = ? AND id ${beyond} ?)`;
  return descending ? `(${later} OR ${field} IS NULL)` : `(${later})`;
}
