import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DbConfig } from '../config/environment.js';
import { sql } from '../db/statements.js';
import type { Logger } from '../log/logger.js';
import { projectFile } from '../paths.js';
import { checkColumns } from './columns.js';
import { withMigrationLock } from './migration-lock.js';
import { applyMigrations, prepareForGalera, type AppliedMigration, type SchemaVersions } from './migrations.js';
import { onFirstServer, type SchemaSession } from './schema-session.js';
import { reconcileUniqueEmail, type UniqueEmailOutcome } from './unique-email.js';

export type SchemaOutcome = 'created' | 'existing';

export interface SchemaOptions {
  logger: Logger;
  /** UNIQUE_EMAIL=on: the unique email index is built when absent. */
  uniqueEmail: boolean;
  /** Ends a wait for another instance's migrations. */
  signal?: AbortSignal;
  /** EVENTS=on: the tables of change events are migrations too. */
  events?: boolean;
  /** IDEMPOTENCY=on: so is the table of Idempotency-Keys. */
  idempotency?: boolean;
  /** LIMITS_SHARED=on: so is the table of shared limit counts. */
  sharedLimits?: boolean;
  /** Told once the database answered: from then on the schema is being put in place. */
  reached?: () => void;
}

export interface SchemaReport {
  table: SchemaOutcome;
  /** The migrations this call applied. */
  applied: AppliedMigration[];
  /** The version the database is at now, and what the settings need. */
  versions: SchemaVersions;
  uniqueEmail: UniqueEmailOutcome;
}

const TABLE = 'users';
const ER_TABLE_EXISTS = 1050;

/**
 * Makes the schema one the service can use, on the first server of DB_HOST where that completes:
 * the database and users table (as ensureUsersTable), its columns checked (a table that cannot
 * serve stops the start with an UnusableSchemaError), pending migrations applied, and the unique
 * email index as UNIQUE_EMAIL says. Each step says what it did in the log.
 */
export function ensureSchema(db: DbConfig, options: SchemaOptions, connectTimeoutMs = 5000): Promise<SchemaReport> {
  const { logger } = options;
  return onFirstServer(
    db,
    async (session) => {
      await prepareForGalera(session);
      options.reached?.();
      const table = await createUsersTable(session, db.database);
      logger.info(table === 'created' ? 'users table created and seeded' : 'users table found', { database: db.database });
      await checkColumns(session, db.database);
      return withMigrationLock(
        session,
        db.database,
        logger,
        async () => ({
          table,
          ...(await applyMigrations(session, logger, { events: options.events ?? false, idempotency: options.idempotency ?? false, sharedLimits: options.sharedLimits ?? false })),
          uniqueEmail: await reconcileUniqueEmail(session, options.uniqueEmail, logger),
        }),
        options.signal,
      );
    },
    connectTimeoutMs,
  );
}

/** `npm run db:init`: the database and the users table of schema.sql, and nothing more. */
export function ensureUsersTable(db: DbConfig, connectTimeoutMs = 5000): Promise<SchemaOutcome> {
  return onFirstServer(db, (session) => createUsersTable(session, db.database), connectTimeoutMs);
}

/**
 * Makes sure the database and the users table exist. A missing table is built under a temporary
 * name, seeded from schema.sql, then renamed into place in one atomic step: concurrent starters
 * cannot both seed, a crash never leaves a half-seeded table, and an existing table is never touched.
 * On a Galera cluster the rename is replicated in total order, so this holds across nodes too.
 */
async function createUsersTable(session: SchemaSession, database: string): Promise<SchemaOutcome> {
  await session.query(sql.createDatabase(database));
  await session.query(sql.useDatabase(database));
  if ((await session.query<unknown[]>(sql.tableExists, [TABLE])).length > 0) return 'existing';
  const staging = `${TABLE}_init_${randomBytes(6).toString('hex')}`;
  try {
    for (const statement of schemaStatements(staging)) await session.query(statement);
    await session.query(sql.renameTable(staging, TABLE));
    return 'created';
  } catch (error) {
    if ((error as { errno?: number }).errno === ER_TABLE_EXISTS) return 'existing';
    throw error;
  } finally {
    await session.query(sql.dropTable(staging)).catch(() => {});
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
