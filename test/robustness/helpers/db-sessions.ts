import mysql from 'mysql2/promise';
import type { DbConfig } from '../../../src/config/environment.js';
import { testServer, type TestDatabase } from '../../helpers/database.js';

export interface Session {
  id: number;
  state: string;
}

/**
 * The server-side sessions (connections) that have the test database selected, from
 * information_schema.processlist, leaving out the test's own side connection.
 */
export function serviceSessions(db: TestDatabase): Promise<Session[]> {
  return db.query<Session[]>(
    'SELECT id, COALESCE(state, \'\') AS state FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()',
    [db.config.database],
  );
}

/** KILLs each session; one that ended meanwhile (ER_NO_SUCH_THREAD) is fine. */
export async function killSessions(db: TestDatabase, sessions: Session[]): Promise<void> {
  for (const { id } of sessions) {
    await db.query('KILL CONNECTION ?', [id]).catch((error: { errno?: number }) => {
      if (error.errno !== 1094) throw error;
    });
  }
}

/** Sessions of the service stuck behind a table lock. */
export async function sessionsWaitingForLock(db: TestDatabase): Promise<Session[]> {
  return (await serviceSessions(db)).filter((session) => /lock/i.test(session.state));
}

export interface TableLock {
  release(): Promise<void>;
}

/**
 * `LOCK TABLES users WRITE` on a connection of its own: every statement of the service on the
 * table waits until `release`, which keeps requests deterministically in flight.
 */
export async function lockUsersTable(config: DbConfig): Promise<TableLock> {
  // No default database, so this connection is not counted among the service's sessions.
  const connection = await mysql.createConnection(testServer);
  await connection.query(`LOCK TABLES \`${config.database}\`.users WRITE`);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await connection.query('UNLOCK TABLES');
      await connection.end();
    },
  };
}
