import { createHash } from 'node:crypto';
import { sql } from '../db/statements.js';
import type { Logger } from '../log/logger.js';
import type { SchemaSession } from './schema-session.js';

/** How long one GET_LOCK waits before the wait is checked for a stop and tried again, in seconds. */
const WAIT_STEP_S = 2;
/** Some MariaDB releases of 2023 (MDEV-30473, reverted since) refuse named locks on a Galera node so. */
const ER_NOT_SUPPORTED_YET = 1235;
/** MySQL refuses lock names longer than this. */
const MAX_LOCK_NAME = 64;

/** The named lock of one database's migrations: named locks are server-wide, so it carries the database's name. */
export function migrationLockName(database: string): string {
  const name = `${database}.schema_migrations`;
  return name.length <= MAX_LOCK_NAME ? name : `schema_migrations.${createHash('sha256').update(database).digest('hex').slice(0, 40)}`;
}

/**
 * Runs `work` holding the database's migration lock (GET_LOCK), so that of the instances and
 * workers starting together on one server, one migrates while the others wait, then find nothing
 * left to do. The lock goes with the session, so a runner that dies frees it. On a Galera node the
 * lock is local to that node (or refused, by the releases above): runners through different nodes
 * are not serialised, which idempotent DDL and INSERT IGNORE make harmless (see docs/scaling.md).
 */
export async function withMigrationLock<T>(
  session: SchemaSession,
  database: string,
  logger: Logger,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const lock = migrationLockName(database);
  const held = await takeLock(session, lock, logger, signal);
  try {
    return await work();
  } finally {
    if (held) await session.query(sql.releaseNamedLock, [lock]).catch(() => {});
  }
}

/** True once held; false when the server refuses named locks, so the work goes on without one. */
async function takeLock(session: SchemaSession, lock: string, logger: Logger, signal?: AbortSignal): Promise<boolean> {
  for (let waited = false; ; waited = true) {
    signal?.throwIfAborted();
    let got: unknown;
    try {
      [{ got }] = await session.query<[{ got: unknown }]>(sql.takeNamedLock, [lock, WAIT_STEP_S]);
    } catch (error) {
      if ((error as { errno?: unknown }).errno !== ER_NOT_SUPPORTED_YET) throw error;
      logger.warn('named locks refused by the server: migrating without the lock', { lock, reason: (error as Error).message });
      return false;
    }
    if (Number(got) === 1) return true;
    if (got === null) throw new Error(`GET_LOCK('${lock}') failed`);
    if (!waited) logger.info('waiting for another instance to finish the schema migrations', { lock });
  }
}
