import type { Connection } from 'mysql2';
import { sql } from './statements.js';

/** Session settings only tests use, to make the server behave as a test needs. */
export interface SessionTesting {
  /** The session wait_timeout, so that the server drops idle connections soon. */
  sessionWaitTimeoutSeconds?: number;
  /** The session's auto-increment step and offset, as a Galera cluster sets them. */
  sessionAutoIncrement?: { increment: number; offset: number };
}

/**
 * Settings every new connection gets, queued ahead of any statement it is handed out for: UTC, so
 * TIMESTAMP values read the same whatever the server's time zone; and on a Galera node causal
 * reads (see sql.causalReads). A setting the server does not know (MySQL has no wsrep_on) fails
 * alone and leaves the connection usable.
 */
export function prepareSession(connection: Connection, testing: SessionTesting = {}): void {
  connection.query(sql.useUtc, () => {});
  connection.query(sql.causalReads, () => {});
  if (testing.sessionWaitTimeoutSeconds !== undefined) {
    connection.query(sql.setWaitTimeout, [testing.sessionWaitTimeoutSeconds], () => {});
  }
  if (testing.sessionAutoIncrement !== undefined) {
    const { increment, offset } = testing.sessionAutoIncrement;
    connection.query(sql.setAutoIncrementStep, [increment, offset], () => {});
  }
}
