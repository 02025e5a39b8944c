/** What a list request asks for (which users, in what order, which page), and its bounds; list-request.ts reads it from a query. */

export const MAX_PAGE_SIZE = 1000;
/** `q`, `prefix` and `email` are compared with columns of 100 characters. */
export const MAX_FIND_LENGTH = 100;

export const sortFields = ['id', 'name', 'email', 'created_at'] as const;
export type SortField = (typeof sortFields)[number];

export interface SortOrder {
  field: SortField;
  descending: boolean;
}

/** Which users a list shows; every condition given must hold. */
export interface ListFilter {
  /** Exactly this email, compared as the column's collation compares (case-insensitively). */
  email?: string;
  /** Name or email contains this text. */
  q?: string;
  /** Name or email starts with this text. */
  prefix?: string;
}

/** The last user of a page, by what the list is sorted on: the next page starts after it. */
export interface Position {
  /** The sort field's value (the id itself when sorted by id); null where the column is NULL. */
  value: string | number | null;
  id: number;
}

export interface ListPage {
  limit: number;
  /** Absent on the first page. */
  after?: Position;
}

/** A list request beyond the contract's plain list: finding, sorting, paging, counting. */
export interface ListRequest {
  filter: ListFilter;
  sort: SortOrder;
  /** Absent: every matching user, streamed. */
  page?: ListPage;
  /** `Prefer: count=exact`: the number of matching users is wanted. */
  count: boolean;
}

export const DEFAULT_SORT: SortOrder = { field: 'id', descending: false };

/** The sort as the `sort` parameter writes it. */
export function sortParameter({ field, descending }: SortOrder): string {
  return descending ? `-${field}` : field;
}

/** Paging by id ascending keeps the contract's `after=<id>`; any other order pages by cursor. */
export function pagesById({ field, descending }: SortOrder): boolean {
  return field === 'id' && !descending;
}
