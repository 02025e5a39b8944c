import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import type { DbConfig } from '../config/environment.js';
import { sql, type Migration } from '../db/statements.js';
import type { Logger } from '../log/logger.js';
import { projectFile } from '../paths.js';
import { checkColumns } from './columns.js';
import { buildRetryFor, type BuildRetry } from './build-retry.js';
import { withMigrationLock } from './migration-lock.js';
import { applyMigration, holdsRequests, pendingOf, prepareForGalera, reportVersions, type AppliedMigration, type SchemaVersions } from './migrations.js';
import type { BuildProgress } from './online-index.js';
import { onFirstServer, type SchemaSession } from './schema-session.js';
import { reconcileUniqueEmail, uniqueEmailToBuild, type UniqueEmailOutcome } from './unique-email.js';

export type SchemaOutcome = 'created' | 'existing';

/** What the settings need of the schema (schemaNeeds in schema-needs.ts makes it from the configuration). */
export interface SchemaNeeds {
  /** UNIQUE_EMAIL=on: the unique email index is built when absent. */
  uniqueEmail: boolean;
  /** EVENTS=on: the tables of change events are migrations too. */
  events?: boolean;
  /** IDEMPOTENCY=on: so is the table of Idempotency-Keys. */
  idempotency?: boolean;
  /** LIMITS_SHARED=on: so is the table of shared limit counts. */
  sharedLimits?: boolean;
}

export interface SchemaOptions extends SchemaNeeds {
  logger: Logger;
  /** Ends a wait for another instance's migrations. */
  signal?: AbortSignal;
  /** Told once the database answered, when steps that hold requests are pending: from then on they are being applied. */
  holding?: () => void;
  /** Told once requests may be served: every step that holds them is done; index builds go on while they are served. */
  serving?: () => void;
  /** Told while each index builds. */
  progress?: BuildProgress;
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
/** The pause before a failed index build tries again (build-retry.ts). */
const BUILD_RETRY_MS = 1000;
const ER_TABLE_EXISTS = 1050;
const RETRY_LINES: Record<BuildRetry, string> = {
  'table held': 'index build waits for a transaction that holds the users table',
  interrupted: "index build interrupted by another node's schema change: trying again",
};

/**
 * Makes the schema one the service can use, on the first server of DB_HOST where that completes:
 * the database and users table (as ensureUsersTable), its columns checked (a table that cannot
 * serve stops the start with an UnusableSchemaError), then the steps requests wait for (new tables,
 * the unique email index of UNIQUE_EMAIL) under the migration lock, then `serving`, then the index
 * builds, online, one per lock, so that another instance's steps wait for one build at most. Each
 * step says what it did in the log; an instance finding nothing pending that holds requests takes
 * no lock before serving.
 */
export function ensureSchema(db: DbConfig, options: SchemaOptions, connectTimeoutMs = 5000): Promise<SchemaReport> {
  const { logger } = options;
  const features = { events: options.events ?? false, idempotency: options.idempotency ?? false, sharedLimits: options.sharedLimits ?? false };
  return onFirstServer(
    db,
    async (session) => {
      const galera = await prepareForGalera(session);
      const table = await createUsersTable(session, db.database);
      logger.info(table === 'created' ? 'users table created and seeded' : 'users table found', { database: db.database });
      await checkColumns(session, db.database);
      await session.query(sql.createMigrationsTable);
      const applied: AppliedMigration[] = [];
      const runAll = async (which: (migration: Migration) => boolean): Promise<void> => {
        for (const migration of await pendingOf(session, features, which)) {
          const done = await applyMigration(session, migration, logger, options.progress);
          if (done) applied.push(done);
        }
      };
      let uniqueEmail: UniqueEmailOutcome;
      if ((await pendingOf(session, features, holdsRequests)).length > 0 || (await uniqueEmailToBuild(session, options.uniqueEmail))) {
        options.holding?.();
        uniqueEmail = await withMigrationLock(
          session,
          db.database,
          logger,
          async () => {
            await runAll(holdsRequests);
            return reconcileUniqueEmail(session, options.uniqueEmail, logger);
          },
          options.signal,
        );
      } else uniqueEmail = await reconcileUniqueEmail(session, options.uniqueEmail, logger);
      options.serving?.();
      await session.query(sql.shortLockWait);
      let interruptions = 0;
      for (let next = await pendingOf(session, features, online); next.length > 0; next = await pendingOf(session, features, online)) {
        const version = next[0]!.version;
        try {
          await withMigrationLock(session, db.database, logger, () => runAll((migration) => migration.version === version), options.signal);
        } catch (error) {
          const retry = buildRetryFor(error, galera, interruptions);
          if (retry === undefined) throw error;
          if (retry === 'interrupted') interruptions++;
          logger.info(RETRY_LINES[retry], { version, retryInMs: BUILD_RETRY_MS });
          await sleep(BUILD_RETRY_MS, undefined, options.signal ? { signal: options.signal } : {});
        }
      }
      return { table, applied, versions: await reportVersions(session, logger, features, applied), uniqueEmail };
    },
    connectTimeoutMs,
  );
}

/** A migration that runs while requests are served. */
function online(migration: Migration): boolean {
  return !holdsRequests(migration);
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
