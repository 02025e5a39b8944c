import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import mysql, { type Connection } from 'mysql2/promise';
import type { DbConfig, Endpoint } from '../config/environment.js';
import { projectFile } from '../paths.js';
import { sql } from '../db/statements.js';

export type SchemaOutcome = 'created' | 'existing';

const TABLE = 'users';
const ER_TABLE_EXISTS = 1050;

/**
 * Makes sure the database and the users table exist. A missing table is built under a temporary
 * name, seeded from schema.sql, then renamed into place in one atomic step: concurrent starters
 * cannot both seed, a crash never leaves a half-seeded table, and an existing table is never touched.
 * On a Galera cluster the rename is replicated in total order, so this holds across nodes too.
 * With several servers, the first that completes it, in DB_HOST order, is used.
 */
export async function ensureSchema(db: DbConfig, connectTimeoutMs = 5000): Promise<SchemaOutcome> {
  for (let i = 0; ; i++) {
    try {
      return await ensureSchemaOn(db, db.servers[i]!, connectTimeoutMs);
    } catch (error) {
      if (i + 1 === db.servers.length) throw error;
    }
  }
}

async function ensureSchemaOn(db: DbConfig, where: Endpoint, connectTimeoutMs: number): Promise<SchemaOutcome> {
  const connection = await mysql.createConnection({
    ...where,
    user: db.user,
    password: db.password,
    charset: 'utf8mb4',
    connectTimeout: connectTimeoutMs,
  });
  const run = (statement: string, values: unknown[] = []) => query(connection, statement, values);
  try {
    await run(sql.createDatabase(db.database));
    await run(sql.useDatabase(db.database));
    if ((await run(sql.tableExists, [TABLE])).length > 0) return 'existing';
    const staging = `${TABLE}_init_${randomBytes(6).toString('hex')}`;
    try {
      for (const statement of schemaStatements(staging)) await run(statement);
      await run(sql.renameTable(staging, TABLE));
      return 'created';
    } catch (error) {
      if ((error as { errno?: number }).errno === ER_TABLE_EXISTS) return 'existing';
      throw error;
    } finally {
      await run(sql.dropTable(staging)).catch(() => {});
    }
  } finally {
    connection.destroy();
  }
}

/** The statements of schema.sql, aimed at the given table name. */
export function schemaStatements(table: string): string[] {
  const text = readFileSync(projectFile('schema.sql'), 'utf8');
  return text
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement !== '')
    .map((statement) =>
      statement.replace(/^(CREATE TABLE(?: IF NOT EXISTS)?|INSERT INTO)\s+`?users`?/i, `$1 \`${table}\``),
    );
}

/** Each set-up statement gets this long: a database that stops answering fails the attempt, which is retried. */
const STATEMENT_TIMEOUT_MS = 10_000;

async function query(connection: Connection, statement: string, values: unknown[]): Promise<unknown[]> {
  const [rows] = await connection.query({ sql: statement, values, timeout: STATEMENT_TIMEOUT_MS });
  return rows as unknown[];
}
