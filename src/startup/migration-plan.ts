import mysql from 'mysql2/promise';
import type { DbConfig } from '../config/environment.js';
import { sql } from '../db/statements.js';
import { checkColumns } from './columns.js';
import { databaseVersion, latestVersion, pendingMigrations, type SchemaVersions } from './migrations.js';
import { schemaStatements, type SchemaNeeds } from './schema.js';
import { onFirstServer, type SchemaSession } from './schema-session.js';
import { duplicatedEmails, duplicatesMessage, UNIQUE_EMAIL_INDEX } from './unique-email.js';
import { UnusableSchemaError } from './unusable-schema.js';

/** A statement ensureSchema would run, and why. */
export interface PlannedStatement {
  why: string;
  statement: string;
}

export interface SchemaPlan {
  /** In order; empty when nothing would be done. When not, they start with the database's creation if it is missing, and its USE. */
  statements: PlannedStatement[];
  /** The version the database is at now (before any of them), and what the settings need. */
  versions: SchemaVersions;
}

/**
 * What ensureSchema would do to the database now, found by reading only: `npm run db:migrate --
 * --dry-run`. The problems that would stop a start (columns, duplicated emails) throw
 * UnusableSchemaError as they would there. The recording of each migration is shown with a NULL
 * duration, which is how one applied by hand is recorded.
 */
export function planSchema(db: DbConfig, needs: SchemaNeeds): Promise<SchemaPlan> {
  const { uniqueEmail } = needs;
  const features = { events: needs.events ?? false, idempotency: needs.idempotency ?? false, sharedLimits: needs.sharedLimits ?? false };
  return onFirstServer(db, async (session) => {
    const plan: PlannedStatement[] = [];
    const databaseExists = (await session.query<unknown[]>(sql.databaseExists, [db.database])).length > 0;
    if (databaseExists) await session.query(sql.useDatabase(db.database));
    else plan.push({ why: 'the database', statement: sql.createDatabase(db.database) });

    const usersExists = databaseExists && (await tableExists(session, 'users'));
    if (usersExists) await checkColumns(session, db.database);
    else plan.push(...schemaStatements('users').map((statement) => ({ why: 'the users table of schema.sql, seeded', statement })));

    const migrationsExists = databaseExists && (await tableExists(session, 'schema_migrations'));
    const versions: SchemaVersions = { version: await databaseVersion(session, migrationsExists), needed: latestVersion(features) };
    if (!migrationsExists) plan.push({ why: 'the record of applied migrations', statement: sql.createMigrationsTable });
    for (const { version, name, statement } of await pendingMigrations(session, migrationsExists, features)) {
      plan.push({ why: `migration ${version} ${name}`, statement });
      plan.push({ why: `recording migration ${version}`, statement: mysql.format(sql.recordMigration, [version, name, null]) });
    }

    if (uniqueEmail && !(usersExists && (await indexExists(session, UNIQUE_EMAIL_INDEX)))) {
      const duplicated = usersExists ? await duplicatedEmails(session) : 0;
      if (duplicated > 0) throw new UnusableSchemaError(duplicatesMessage(duplicated));
      plan.push({ why: 'UNIQUE_EMAIL=on', statement: sql.addUniqueEmail });
    }
    // Run by a client as printed (`| mariadb`, which names no database), the statements must say where they apply.
    if (plan.length > 0) plan.splice(databaseExists ? 0 : 1, 0, { why: 'every statement below applies to this database', statement: sql.useDatabase(db.database) });
    return { statements: plan, versions };
  });
}

async function tableExists(session: SchemaSession, table: string): Promise<boolean> {
  return (await session.query<unknown[]>(sql.tableExists, [table])).length > 0;
}

async function indexExists(session: SchemaSession, index: string): Promise<boolean> {
  return (await session.query<unknown[]>(sql.indexExists, [index])).length > 0;
}
