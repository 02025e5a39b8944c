import { isIndexMigration, migrationsFor, sql, type Migration, type SchemaFeatures } from '../db/statements.js';
import { retryPauseMs, wasRolledBack } from '../db/mysql-errors.js';
import type { Logger } from '../log/logger.js';
import { addIndexOnline, type BuildProgress } from './online-index.js';
import type { SchemaSession } from './schema-session.js';

export interface AppliedMigration {
  version: number;
  name: string;
  durationMs: number;
}

export const NO_FEATURES: SchemaFeatures = { events: false };

/** The schema version these settings need: the newest of the migrations their features call for. */
export function latestVersion(features = NO_FEATURES): number {
  return Math.max(...migrationsFor(features).map((migration) => migration.version));
}

/**
 * Where a database is and what the settings need, which differ: one that once ran with EVENTS=on is
 * at version 9 while the settings without EVENTS need only 3.
 */
export interface SchemaVersions {
  /** The newest migration the database recorded; undefined when it recorded none (or has no record at all). */
  version: number | undefined;
  /** What the current settings need (latestVersion). */
  needed: number;
}

/** The version the database is at: the newest migration schema_migrations records. */
export async function databaseVersion(session: SchemaSession, tableExists = true): Promise<number | undefined> {
  if (!tableExists) return undefined;
  const [row] = await session.query<Array<{ version: unknown }>>(sql.schemaVersion);
  return row?.version === null || row?.version === undefined ? undefined : Number(row.version);
}

/** The migrations not recorded in schema_migrations, in order; every one when the table is missing. */
export async function pendingMigrations(session: SchemaSession, tableExists = true, features = NO_FEATURES): Promise<Migration[]> {
  if (!tableExists) return migrationsFor(features);
  const rows = await session.query<Array<{ version: unknown }>>(sql.appliedMigrations);
  const applied = new Set(rows.map((row) => Number(row.version)));
  return migrationsFor(features).filter((migration) => !applied.has(migration.version));
}

/** Whether requests wait while the migration runs (see Holds in src/db/statements.ts). */
export function holdsRequests(migration: Migration): boolean {
  return migration.holds !== 'none';
}

/** The pending migrations `which` selects, in the order they run: new tables before index builds, each in version order. */
export async function pendingOf(session: SchemaSession, features: SchemaFeatures, which: (migration: Migration) => boolean): Promise<Migration[]> {
  const pending = (await pendingMigrations(session, true, features)).filter(which);
  return [...pending.filter((migration) => !isIndexMigration(migration)), ...pending.filter(isIndexMigration)];
}

/**
 * Applies one pending migration and records it, logging it with its duration; false when another
 * runner recorded it first. Call it holding the migration lock (migration-lock.ts), having read
 * the pending ones after taking it, so a runner that waited finds nothing left. Without a shared
 * lock (Galera nodes) two runners may both run a statement: the DDL is idempotent, and only the
 * runner whose INSERT IGNORE recorded the version logs it as applied.
 */
export async function applyMigration(session: SchemaSession, migration: Migration, logger: Logger, progress?: BuildProgress): Promise<AppliedMigration | undefined> {
  const { version, name } = migration;
  const durationMs = await apply(session, migration, logger, progress);
  if (!(await record(session, migration, durationMs))) return undefined;
  logger.info('migration applied', { version, name, durationMs });
  return { version, name, durationMs };
}

/** One line giving the database's version and what the settings need ('schema up to date' when this runner applied nothing, else 'schema migrated'). */
export async function reportVersions(session: SchemaSession, logger: Logger, features: SchemaFeatures, applied: readonly AppliedMigration[]): Promise<SchemaVersions> {
  const versions: SchemaVersions = { version: await databaseVersion(session), needed: latestVersion(features) };
  if (applied.length === 0) logger.info('schema up to date', { ...versions });
  else logger.info('schema migrated', { applied: applied.length, ...versions });
  return versions;
}

export interface MigrationOutcome {
  /** The migrations this runner recorded. */
  applied: AppliedMigration[];
  /** The database's version afterwards, and what the settings need. */
  versions: SchemaVersions;
}

/** An index is added online (online-index.ts); a new table is created unless it exists. The milliseconds it took. */
async function apply(session: SchemaSession, migration: Migration, logger: Logger, progress?: BuildProgress): Promise<number> {
  const { version, name, index, statement } = migration;
  if (index !== undefined) return addIndexOnline(session, { index, statement }, logger, { version, name }, progress);
  const started = performance.now();
  await session.long(statement);
  return Math.round(performance.now() - started);
}

/** True when this runner's row recorded the version. A Galera certification conflict with another node's record runs it again. */
async function record(session: SchemaSession, { version, name }: Migration, durationMs: number): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await session.query<{ affectedRows: number }>(sql.recordMigration, [version, name, durationMs]);
      return result.affectedRows === 1;
    } catch (error) {
      if (!wasRolledBack(error) || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryPauseMs()));
    }
  }
}

/**
 * On a Galera node: schema changes replicate in total order whatever the server's default, since a
 * migration recorded in the replicated schema_migrations must exist on every node; and reads wait
 * for the node to apply what the cluster committed, so the applied versions are current. True on a
 * Galera node.
 */
export async function prepareForGalera(session: SchemaSession): Promise<boolean> {
  const rows = await session.query<Array<{ Value?: unknown }>>(sql.replicationEnabled);
  if (String(rows[0]?.Value).toUpperCase() !== 'ON') return false;
  await session.query(sql.totalOrderDdl);
  await session.query(sql.causalReads);
  return true;
}
