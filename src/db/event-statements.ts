/**
 * The statements of change events (EVENTS=on), beside statements.ts's and written the same way:
 * values travel as parameters, batch statements are built once per size.
 *
 * Ordering: every transaction that records events takes its ids from the one row of
 * event_sequence, whose lock it then holds until it commits. So ids are handed out in commit
 * order: once an event is readable, every event with a smaller id is too, and a reader that
 * resumes after the last id it saw never misses one. (Auto-increment ids would not do: they are
 * assigned at insert, and transactions commit in another order.) On a Galera cluster the row is
 * certified like any other: of two nodes taking the same ids, one is rolled back and runs again.
 */
import { marks, memoized } from './statement-shapes.js';

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

/** The columns every event read returns, in user_events. */
const EVENT_COLUMNS = 'id, type, user_id, name, email, created_at, request_id, occurred_at';

export const eventTables = {
  /** The outbox: one row per acknowledged change, written in the change's transaction. */
  userEvents:
    'CREATE TABLE IF NOT EXISTS user_events (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, type VARCHAR(20) NOT NULL, ' +
    'user_id INT NOT NULL, name TEXT NULL, email TEXT NULL, created_at TIMESTAMP(6) NULL DEFAULT NULL, ' +
    'request_id VARCHAR(200) NULL, occurred_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), ' +
    `KEY user_events_occurred_at (occurred_at)) ${TABLE_OPTIONS}`,
  /** The last event id handed out (row 1), and the last id pruned (row 2). */
  eventSequence: `CREATE TABLE IF NOT EXISTS event_sequence (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, last_id BIGINT UNSIGNED NOT NULL) ${TABLE_OPTIONS}`,
  /** Who does a shared job (delivering to one endpoint, pruning) until when. */
  eventLeases:
    'CREATE TABLE IF NOT EXISTS event_leases (name VARCHAR(100) NOT NULL PRIMARY KEY, holder VARCHAR(100) NOT NULL, ' +
    `expires_at TIMESTAMP(3) NOT NULL) ${TABLE_OPTIONS}`,
  /** Each webhook endpoint (by the SHA-256 of its URL) and the last event queued for it. */
  webhookEndpoints:
    'CREATE TABLE IF NOT EXISTS webhook_endpoints (endpoint CHAR(64) NOT NULL PRIMARY KEY, url TEXT NOT NULL, ' +
    'queued_through BIGINT UNSIGNED NOT NULL, ' +
    `updated_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)) ${TABLE_OPTIONS}`,
  /** Deliveries not yet acknowledged (pending) or given up (failed); an acknowledged one is deleted. */
  webhookDeliveries:
    'CREATE TABLE IF NOT EXISTS webhook_deliveries (endpoint CHAR(64) NOT NULL, event_id BIGINT UNSIGNED NOT NULL, ' +
    "user_id INT NOT NULL, state ENUM('pending', 'failed') NOT NULL DEFAULT 'pending', attempts INT UNSIGNED NOT NULL DEFAULT 0, " +
    'queued_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), next_attempt_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), ' +
    'last_error VARCHAR(200) NULL, PRIMARY KEY (endpoint, event_id), ' +
    'KEY webhook_deliveries_user (endpoint, user_id, state, event_id), ' +
    `KEY webhook_deliveries_due (endpoint, state, next_attempt_at)) ${TABLE_OPTIONS}`,
} as const;

const SEQUENCE_ROW = 1;
const PRUNED_ROW = 2;

export const eventSql = {
  /**
   * Hands out `count` ids and locks the sequence until commit: the statement's insert id is the
   * last of them. The row is made by the first transaction that needs it.
   */
  takeIds:
    `INSERT INTO event_sequence (id, last_id) VALUES (${SEQUENCE_ROW}, LAST_INSERT_ID(?)) ` +
    'ON DUPLICATE KEY UPDATE last_id = LAST_INSERT_ID(last_id + ?)',
  /**
   * The events of users just created or replaced, read back in the same transaction, so they hold
   * exactly what was stored. Ids follow the users' ids from `first`. Values: first, type, then (id,
   * request id) per user, then the ids.
   */
  recordWritten: memoized(
    (count) =>
      `INSERT INTO user_events (id, type, user_id, name, email, created_at, request_id) ` +
      `SELECT ? - 1 + ROW_NUMBER() OVER (ORDER BY id), ?, id, name, email, created_at, ` +
      `CASE id ${marks(count, 'WHEN ? THEN ?', ' ')} END ` +
      `FROM users WHERE id IN (${marks(count, '?')})`,
  ),
  /** A removal's event: the id alone. */
  recordDeleted: "INSERT INTO user_events (id, type, user_id, request_id) VALUES (?, 'user.deleted', ?, ?)",
  /** Up to `limit` events after an id, oldest first. */
  eventsAfter: `SELECT ${EVENT_COLUMNS} FROM user_events WHERE id > ? ORDER BY id LIMIT ?`,
  /** The last id handed out; none before the first event. */
  lastId: `SELECT last_id FROM event_sequence WHERE id = ${SEQUENCE_ROW}`,
  /** The greatest id pruned; a reader resuming before it has missed events. */
  prunedThrough: `SELECT last_id FROM event_sequence WHERE id = ${PRUNED_ROW}`,
  /**
   * Up to `limit` of the oldest events recorded before `cutoff` seconds ago that no endpoint still
   * needs: not yet queued for an endpoint in use, or waiting for its delivery.
   */
  prunable:
    'SELECT e.id FROM user_events e WHERE e.occurred_at < NOW(6) - INTERVAL ? SECOND ' +
    'AND e.id <= (SELECT COALESCE(MIN(queued_through), 18446744073709551615) FROM webhook_endpoints WHERE updated_at > NOW(3) - INTERVAL ? SECOND) ' +
    "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.state = 'pending') " +
    'ORDER BY e.id LIMIT ?',
  deleteEvents: memoized((count) => `DELETE FROM user_events WHERE id IN (${marks(count, '?')})`),
  /** Raises the pruned mark (never lowers it). */
  markPruned: `INSERT INTO event_sequence (id, last_id) VALUES (${PRUNED_ROW}, ?) ON DUPLICATE KEY UPDATE last_id = GREATEST(last_id, VALUES(last_id))`,
  /**
   * Takes or renews a lease: granted when free, expired, or already this holder's. Assignments run
   * left to right, so expires_at is set only once holder is (still) this one.
   */
  takeLease:
    'INSERT INTO event_leases (name, holder, expires_at) VALUES (?, ?, NOW(3) + INTERVAL ? SECOND) ' +
    'ON DUPLICATE KEY UPDATE holder = IF(holder = VALUES(holder) OR expires_at < NOW(3), VALUES(holder), holder), ' +
    'expires_at = IF(holder = VALUES(holder), VALUES(expires_at), expires_at)',
  leaseHolder: 'SELECT holder FROM event_leases WHERE name = ? AND expires_at >= NOW(3)',
  releaseLease: 'DELETE FROM event_leases WHERE name = ? AND holder = ?',
} as const;
