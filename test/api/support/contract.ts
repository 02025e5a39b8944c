import assert from 'node:assert/strict';
import type { TestDatabase } from '../../helpers/database.js';
import type { ApiResponse } from '../../helpers/http.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Every error body is exactly `{"error": <string>}`; with `message`, that exact string. */
export function assertErrorBody(res: ApiResponse, message?: string): void {
  assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE, 'error responses are JSON');
  const body = res.json as Record<string, unknown> | undefined;
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), `error body is an object: ${res.text}`);
  assert.deepEqual(Object.keys(body), ['error'], `error body has exactly one member, error: ${res.text}`);
  assert.equal(typeof body.error, 'string');
  if (message !== undefined) assert.equal(body.error, message);
}

/** The ten users schema.sql seeds, in insertion (= id) order. */
export const seedUsers: ReadonlyArray<{ name: string; email: string }> = [
  { name: 'John Doe', email: 'john@example.com' },
  { name: 'Jane Smith', email: 'jane@example.com' },
  { name: 'Alice Johnson', email: 'alice@example.com' },
  { name: 'Bob Brown', email: 'bob@example.com' },
  { name: 'Charlie Davis', email: 'charlie@example.com' },
  { name: 'Diana Evans', email: 'diana@example.com' },
  { name: 'Ethan Foster', email: 'ethan@example.com' },
  { name: 'Fiona Garcia', email: 'fiona@example.com' },
  { name: 'George Harris', email: 'george@example.com' },
  { name: 'Hannah Irving', email: 'hannah@example.com' },
];

export interface ApiUser {
  id: number;
  name: string;
  email: string;
  created_at: string | null;
}

/**
 * The users as the API must show them, built from what the database itself says: created_at comes
 * from UNIX_TIMESTAMP, so it is independent of any session time zone.
 */
export async function usersFromDatabase(db: TestDatabase, where = '', values: unknown[] = []): Promise<ApiUser[]> {
  const rows = await db.query<Array<{ id: number; name: string; email: string; ts: string | number | null }>>(
    `SELECT id, name, email, UNIX_TIMESTAMP(created_at) AS ts FROM users ${where} ORDER BY id`,
    values,
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    email: row.email,
    created_at: row.ts === null ? null : new Date(Number(row.ts) * 1000).toISOString(),
  }));
}

/** The id of the newest user with this email (POST answers without an id). */
export async function idByEmail(db: TestDatabase, email: string): Promise<number> {
  const rows = await db.query<Array<{ id: number }>>('SELECT MAX(id) AS id FROM users WHERE email = ? COLLATE utf8mb4_bin', [email]);
  const id = rows[0]?.id;
  assert.ok(typeof id === 'number', `a user with email ${email} is stored`);
  return id;
}

/** Everything in the users table, to prove a request changed nothing. */
export function tableSnapshot(db: TestDatabase): Promise<unknown[]> {
  return db.query('SELECT id, name, email, UNIX_TIMESTAMP(created_at) AS ts FROM users ORDER BY id');
}

/** The methods of an Allow-style header as a sorted list. */
export function methodList(header: string | null | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((method) => method.trim())
    .filter((method) => method !== '')
    .sort();
}
