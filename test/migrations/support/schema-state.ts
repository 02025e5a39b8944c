import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { testServer, type TestDatabase } from '../../helpers/database.js';

/** schema.sql as it was before migrations: the table services of that time created and seeded. */
const OLD_SCHEMA = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'schema-before-migrations.sql'), 'utf8');

/**
 * `db` as an older version of the service left it: the database, the users table of the old
 * schema.sql with its ten seed users, and `extraUsers` more (extra-N@example.com).
 */
export async function createOldSchema(db: TestDatabase, extraUsers = 0): Promise<void> {
  const admin = await mysql.createConnection({ ...testServer, multipleStatements: true });
  try {
    const name = db.config.database;
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; USE \`${name}\`; ${OLD_SCHEMA}`);
    if (extraUsers > 0) {
      const rows = Array.from({ length: extraUsers }, (_, i) => [`Extra ${i}`, `extra-${i}@example.com`]);
      await admin.query('INSERT INTO users (name, email) VALUES ?', [rows]);
    }
  } finally {
    await admin.end();
  }
}

/** The users table's index names, sorted. */
export async function userIndexes(db: TestDatabase): Promise<string[]> {
  const rows = await db.query<Array<{ name: string }>>(
    "SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'users'",
  );
  return rows.map((row) => row.name).sort();
}

export const MIGRATION_INDEXES = ['users_created_at', 'users_email', 'users_name'];

/** schema_migrations' rows, by version. */
export function migrationRecords(db: TestDatabase): Promise<Array<{ version: number; name: string; duration_ms: number | null }>> {
  return db.query('SELECT version, name, duration_ms FROM schema_migrations ORDER BY version');
}

/** Every row of the users table, whole, in id order: what an upgrade must keep. */
export function allUsers(db: TestDatabase): Promise<Array<Record<string, unknown>>> {
  return db.query('SELECT id, name, email, created_at FROM users ORDER BY id');
}

/** The JSON log lines with this `msg`. */
export function logged(lines: readonly string[], msg: string): Array<Record<string, unknown>> {
  return lines.flatMap((line) => {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      return entry.msg === msg ? [entry] : [];
    } catch {
      return [];
    }
  });
}
