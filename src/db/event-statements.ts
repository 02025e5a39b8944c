/**
 * The statements of change events (EVENTS=on), beside statements.ts's and written the same way:
 * values travel as parameters, batch statements are built once per size.
 *
 * Storage: a change's transaction writes the events of its batch (one per change, in order) as one
 * row of event_batches, its events a JSON array (event-batches.ts). (user_events, one row per
 * event, is where versions before this one wrote them: still read, and pruned, until it is empty.)
 *
 * Ordering: a batch is written without ids (its `seq` is an auto-increment, given at insert, which
 * is not commit order); ids are handed out afterwards, only to committed batches, by a numbering
 * transaction that holds the one row of event_sequence while it numbers them in seq order (a batch
 * of n events takes n ids, first_id to last_id) and moves the last id on. Numbering transactions
 * follow one another, so ids follow the order in which events became readable: once an event is
 * readable, every event with a smaller id is too, and a reader that resumes after the last id it
 * saw never misses one. No lock is held through a change's commit, so changes commit side by side
 * and share disk flushes. Two changes of one user are ordered by the user's row lock (the later
 * one writes its batch only once the earlier committed, and so gets the greater seq); on a Galera
 * node an applied batch raises the auto-increment counter past its seq, so this holds across nodes
 * too. See docs/events.md.
 */
import { marks, memoized } from './statement-shapes.js';

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

/** The columns every read of the rows versions before this one wrote returns, in user_events. */
const EVENT_COLUMNS = 'id, type, user_id, name, email, created_at, request_id, occurred_at';

/** The columns every read of event_batches returns. */
const BATCH_COLUMNS = 'first_id, last_id, occurred_at, events';

export const eventTables = {
  /** The outbox as versions before event_batches wrote it: one row per acknowledged change. */
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
  /**
   * The outbox: one row per committed write batch, its events (`count` of them) a JSON array in
   * the order of the changes; `seq` orders the rows as written, `first_id` and `last_id` are the
   * event ids the batch is given once committed (see above), null until then.
   */
  eventBatches:
    'CREATE TABLE IF NOT EXISTS event_batches (seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, ' +
    'first_id BIGINT UNSIGNED NULL, last_id BIGINT UNSIGNED NULL, count SMALLINT UNSIGNED NOT NULL, ' +
    'occurred_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), events MEDIUMTEXT NOT NULL, ' +
    `UNIQUE KEY event_batches_last_id (last_id), KEY event_batches_occurred_at (occurred_at)) ${TABLE_OPTIONS}`,
  /** Deliveries not yet acknowledged (pending) or given up (failed); an acknowledged one is deleted. */
  webhookDeliveries:
    'CREATE TABLE IF NOT EXISTS webhook_deliveries (endpoint CHAR(64) NOT NULL, event_id BIGINT UNSIGNED NOT NULL, ' +
    "user_id INT NOT NULL, state ENUM('pending', 'failed') NOT NULL DEFAULT 'pending', attempts INT UNSIGNED NOT NULL DEFAULT 0, " +
    'queued_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), next_attempt_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), ' +
    'last_error VARCHAR(200) NULL, PRIMARY KEY (endpoint, event_id), ' +
    'KEY webhook_deliveries_user (endpoint, user_id, state, event_id), ' +
    `KEY webhook_deliveries_due (endpoint, state, next_attempt_at)) ${TABLE_OPTIONS}`,
} as const;

/** The row of event_sequence that holds the last id handed out. */
export const SEQUENCE_ROW = 1;
const PRUNED_ROW = 2;

export const eventSql = {
  /** A committed batch's events, `count` of them, as one row (event-batches.ts encodes them). Values: count, events. */
  recordBatch: 'INSERT INTO event_batches (count, events) VALUES (?, ?)',
  /**
   * The same for `count` changes of users this transaction replaced, encoded here as event-batches.ts
   * does: each change's values, in the order given, with the creation time its row holds (read in
   * the same statement, so a batch of updates takes no round trip to read them). Values: count, then
   * (order, type, user id, name, email, request id, traceparent) per change.
   */
  recordReplaced: memoized(
    (count) =>
      "INSERT INTO event_batches (count, events) SELECT ?, CONCAT('[', GROUP_CONCAT(JSON_ARRAY(c.type, u.id, c.name, c.email, u.created_at, c.rid, c.tp) " +
      "ORDER BY c.ord SEPARATOR ','), ']') " +
      `FROM (${marks(count, 'SELECT ? AS ord, ? AS type, ? AS id, ? AS name, ? AS email, ? AS rid, ? AS tp', ' UNION ALL ')}) c JOIN users u ON u.id = c.id`,
  ),
  /** Up to `limit` committed batches still without ids, in the order they were written. */
  unnumbered: 'SELECT seq, count FROM event_batches WHERE last_id IS NULL ORDER BY seq LIMIT ?',
  /**
   * The last id handed out, locking the sequence until commit (its insert id); the row is made by
   * the first transaction that needs it.
   */
  lockLastId:
    `INSERT INTO event_sequence (id, last_id) VALUES (${SEQUENCE_ROW}, LAST_INSERT_ID(0)) ` +
    'ON DUPLICATE KEY UPDATE last_id = LAST_INSERT_ID(last_id)',
  /**
   * Ids for `count` batches by seq, only where none were given yet, and the last id handed out
   * moved on, in one statement: its affected rows are the batches numbered and the sequence's row.
   * Values: (seq, first id) per batch, (seq, last id) per batch, the new last id, then the seqs.
   */
  number: memoized(
    (count) =>
      `UPDATE event_batches b JOIN event_sequence s ON s.id = ${SEQUENCE_ROW} ` +
      `SET b.first_id = CASE b.seq ${marks(count, 'WHEN ? THEN ?', ' ')} END, b.last_id = CASE b.seq ${marks(count, 'WHEN ? THEN ?', ' ')} END, ` +
      `s.last_id = ? WHERE b.last_id IS NULL AND b.seq IN (${marks(count, '?')})`,
  ),
  /** Up to `limit` batches holding events after an id, oldest first. */
  batchesAfter: `SELECT ${BATCH_COLUMNS} FROM event_batches WHERE last_id > ? ORDER BY last_id LIMIT ?`,
  /** Up to `limit` batches whose last id is at least this one, oldest first: the first holds the event with this id, if kept. */
  batchesFrom: `SELECT ${BATCH_COLUMNS} FROM event_batches WHERE last_id >= ? ORDER BY last_id LIMIT ?`,
  /** Up to `limit` events after an id among those versions before event_batches wrote, oldest first. */
  legacyAfter: `SELECT ${EVENT_COLUMNS} FROM user_events WHERE id > ? ORDER BY id LIMIT ?`,
  /** These events among those versions before event_batches wrote. */
  legacyByIds: memoized((count) => `SELECT ${EVENT_COLUMNS} FROM user_events WHERE id IN (${marks(count, '?')})`),
  /** The last id handed out; none before the first event. */
  lastId: `SELECT last_id FROM event_sequence WHERE id = ${SEQUENCE_ROW}`,
  /** Both marks in one row: the last id handed out and the last pruned, each 0 until first set. */
  marks:
    `SELECT COALESCE(MAX(IF(id = ${SEQUENCE_ROW}, last_id, NULL)), 0) AS last_id, ` +
    `COALESCE(MAX(IF(id = ${PRUNED_ROW}, last_id, NULL)), 0) AS pruned_through FROM event_sequence`,
  /** The greatest id pruned; a reader resuming before it has missed events. */
  prunedThrough: `SELECT last_id FROM event_sequence WHERE id = ${PRUNED_ROW}`,
  /**
   * Up to `limit` of the oldest batches recorded more than the retention ago (seconds) that no
   * endpoint still needs: not yet queued for an endpoint in use, or holding an event waiting for its
   * delivery. Values: retention, retention (the endpoints in use), limit.
   */
  prunableBatches:
    'SELECT b.seq, b.last_id FROM event_batches b WHERE b.occurred_at < NOW(6) - INTERVAL ? SECOND AND b.last_id IS NOT NULL ' +
    'AND b.last_id <= (SELECT COALESCE(MIN(queued_through), 18446744073709551615) FROM webhook_endpoints WHERE updated_at > NOW(3) - INTERVAL ? SECOND) ' +
    "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id BETWEEN b.first_id AND b.last_id AND d.state = 'pending') " +
    'ORDER BY b.last_id LIMIT ?',
  deleteBatches: memoized((count) => `DELETE FROM event_batches WHERE seq IN (${marks(count, '?')})`),
  /** The same for the rows versions before event_batches wrote, one event each. Values as prunableBatches. */
  prunableLegacy:
    'SELECT e.id FROM user_events e WHERE e.occurred_at < NOW(6) - INTERVAL ? SECOND ' +
    'AND e.id <= (SELECT COALESCE(MIN(queued_through), 18446744073709551615) FROM webhook_endpoints WHERE updated_at > NOW(3) - INTERVAL ? SECOND) ' +
    "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.state = 'pending') " +
    'ORDER BY e.id LIMIT ?',
  deleteLegacy: memoized((count) => `DELETE FROM user_events WHERE id IN (${marks(count, '?')})`),
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
