/** A stored user as the API returns it. */
export interface User {
  id: number;
  name: string;
  email: string;
  /** ISO 8601 in UTC, e.g. 2026-11-22T01:25:36.000Z */
  created_at: string;
}

/** A row as mysql2 returns it with dateStrings: created_at is `YYYY-MM-DD HH:MM:SS` in UTC. */
export interface UserRow {
  id: number;
  name: string;
  email: string;
  created_at: string | null;
}

export function timestampJson(mysqlUtc: string | null): string {
  return mysqlUtc === null ? 'null' : `"${mysqlUtc.slice(0, 10)}T${mysqlUtc.slice(11, 19)}.000Z"`;
}

// The shape is fixed, so the object is written directly rather than built and stringified.
// The list (users/storage/list-layout.ts) writes the same text from the rows the database sends.
export function userJson(row: UserRow): string {
  return `{"id":${row.id},"name":${JSON.stringify(row.name)},"email":${JSON.stringify(row.email)},"created_at":${timestampJson(row.created_at)}}`;
}
