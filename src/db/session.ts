import type { Connection } from 'mysql2';
import { sql } from './statements.js';

/** Session settings tests may change. */
export interface SessionTuning {
  /** Tests only: the session wait_timeout, so that the server drops idle connections soon. */
  sessionWaitTimeoutSeconds?: number;
  /** Tests only: the session's auto-increment step and offset, as a Galera cluster sets them. */
  sessionAutoIncrement?: { increment: number; offset: number };
}

/**
 * Settings every new connection gets, queued ahead of any statement it is handed out for: UTC, so
 * TIMESTAMP values read the same whatever the server's time zone; and on a Galera node causal
 * reads (see sql.causalReads). A setting the server does not know (MySQL has no wsrep_on) fails
 * alone and leaves the connection usable.
 */
export function prepareSession(connection: Connection, tuning: SessionTuning): void {
  connection.query(sql.useUtc, () => {});
  connection.query(sql.causalReads, () => {});
  if (tuning.sessionWaitTimeoutSeconds !== undefined) {
    connection.query(sql.setWaitTimeout, [tuning.sessionWaitTimeoutSeconds], () => {});
  }
  if (tuning.sessionAutoIncrement !== undefined) {
    const { increment, offset } = tuning.sessionAutoIncrement;
    connection.query(sql.setAutoIncrementStep, [increment, offset], () => {});
  }
}
