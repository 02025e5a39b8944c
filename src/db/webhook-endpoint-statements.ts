/**
 * The statements of webhook endpoints as integrators manage them (`/api/webhooks/endpoints`):
 * their settings (webhook_subscriptions) and the log of attempts (webhook_attempts), beside
 * webhook-statements.ts (the marks and the pending deliveries), written the same way.
 */
import { SEQUENCE_ROW } from './event-statements.js';
import { marks, memoized } from './statement-shapes.js';

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

/** As webhook-statements.ts's WAITING: a delivery waiting behind an earlier one of its user. */
const WAITING = "'2038-01-01 00:00:00.000'";

const SUBSCRIPTION_COLUMNS =
  'id, endpoint, source, url, description, event_types, disabled, disabled_reason, metadata, version, created_at, updated_at';

export const endpointTables = {
  /**
   * Every endpoint as integrators see it: `endpoint` is its key in webhook_endpoints and
   * webhook_deliveries (random for one made through the API, the SHA-256 of the URL for one of
   * WEBHOOK_URLS). `event_types` and `metadata` are JSON; `version` makes the ETag.
   */
  subscriptions:
    'CREATE TABLE IF NOT EXISTS webhook_subscriptions (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, ' +
    "endpoint CHAR(64) NOT NULL, source ENUM('env', 'api') NOT NULL, url TEXT NOT NULL, description TEXT NULL, " +
    'event_types VARCHAR(200) NULL, disabled TINYINT(1) NOT NULL DEFAULT 0, disabled_reason VARCHAR(20) NULL, ' +
    "metadata TEXT NOT NULL, secret VARCHAR(100) NULL, previous_secret VARCHAR(100) NULL, previous_until TIMESTAMP(3) NULL, " +
    'failing_since TIMESTAMP(3) NULL, version INT UNSIGNED NOT NULL DEFAULT 1, ' +
    'created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), updated_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), ' +
    `UNIQUE KEY webhook_subscriptions_endpoint (endpoint)) ${TABLE_OPTIONS}`,
  /** One row per attempt to an endpoint, kept as long as the events are (pruned with them). */
  attempts:
    'CREATE TABLE IF NOT EXISTS webhook_attempts (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, ' +
    'endpoint CHAR(64) NOT NULL, event_id BIGINT UNSIGNED NOT NULL, event_type VARCHAR(20) NOT NULL, ' +
    'attempted_at TIMESTAMP(3) NOT NULL, succeeded TINYINT(1) NOT NULL, response_status SMALLINT UNSIGNED NULL, ' +
    'duration_ms INT UNSIGNED NOT NULL, error VARCHAR(200) NULL, response_body VARCHAR(1024) NULL, ' +
    'KEY webhook_attempts_endpoint (endpoint, id), KEY webhook_attempts_event (event_id)) ' +
    TABLE_OPTIONS,
} as const;

/** The filters an attempts page may carry, each a condition of the statement when present. */
export interface AttemptFilters {
  succeeded: boolean;
  eventType: boolean;
  after: boolean;
  before: boolean;
  /** The next page: attempts older than the last one shown. */
  cursor: boolean;
}

export const endpointSql = {
  /** A new endpoint. Values: endpoint, url, description, event types, disabled, metadata, secret. */
  create:
    'INSERT INTO webhook_subscriptions (endpoint, source, url, description, event_types, disabled, metadata, secret) ' +
    "VALUES (?, 'api', ?, ?, ?, ?, ?, ?)",
  /** A WEBHOOK_URLS endpoint listed beside the API's; made once, by whichever process starts first. Values: endpoint, url. */
  addFromEnvironment: "INSERT IGNORE INTO webhook_subscriptions (endpoint, source, url, metadata) VALUES (?, 'env', ?, '{}')",
  /** Its delivery mark, made with it: it gets the events recorded after it (values: endpoint, url). */
  addMark:
    'INSERT IGNORE INTO webhook_endpoints (endpoint, url, queued_through) ' +
    `VALUES (?, ?, COALESCE((SELECT last_id FROM event_sequence WHERE id = ${SEQUENCE_ROW}), 0))`,
  all: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions ORDER BY id`,
  byId: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = ?`,
  byEndpoint: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE endpoint = ?`,
  /**
   * The API's endpoints that receive deliveries now, with what a delivering process needs: the URL,
   * the types, and the keys that sign (the previous one with how long it still does, in ms).
   */
  delivering:
    "SELECT id, endpoint, url, event_types, secret, previous_secret, TIMESTAMPDIFF(MICROSECOND, NOW(3), previous_until) DIV 1000 AS previous_left_ms " +
    "FROM webhook_subscriptions WHERE source = 'api' AND disabled = 0 ORDER BY id",
  /** Whether an API endpoint still receives deliveries (not disabled, not removed). Values: endpoint. */
  stillDelivering: "SELECT 1 FROM webhook_subscriptions WHERE endpoint = ? AND source = 'api' AND disabled = 0",
  /**
   * A change through the API, only of an API endpoint and, when a version is given, only of that
   * version. Enabling clears the reason and the failing time; disabling keeps a reason already given.
   * Values: url, description, event types, metadata, disabled (three times), id, version or null (twice).
   */
  update:
    'UPDATE webhook_subscriptions SET url = ?, description = ?, event_types = ?, metadata = ?, ' +
    'disabled_reason = IF(?, disabled_reason, NULL), failing_since = IF(?, failing_since, NULL), disabled = ?, ' +
    "version = version + 1, updated_at = NOW(3) WHERE id = ? AND source = 'api' AND (? IS NULL OR version = ?)",
  /** An endpoint enabled again starts after the last event recorded: what it missed meanwhile is for recover. Values: endpoint. */
  skipToLast:
    `UPDATE webhook_endpoints SET queued_through = GREATEST(queued_through, COALESCE((SELECT last_id FROM event_sequence WHERE id = ${SEQUENCE_ROW}), 0)) ` +
    'WHERE endpoint = ?',
  /** Values: endpoint. */
  remove: "DELETE FROM webhook_subscriptions WHERE endpoint = ? AND source = 'api'",
  removeMark: 'DELETE FROM webhook_endpoints WHERE endpoint = ?',
  /** Up to `limit` of a removed endpoint's deliveries or attempts. Values: endpoint, limit. */
  removeDeliveries: 'DELETE FROM webhook_deliveries WHERE endpoint = ? LIMIT ?',
  removeAttempts: 'DELETE FROM webhook_attempts WHERE endpoint = ? LIMIT ?',
  secret: "SELECT secret FROM webhook_subscriptions WHERE id = ? AND source = 'api'",
  /**
   * A new key; the one it replaces keeps signing for `grace` seconds (not at all when 0).
   * Values: grace, grace, new key, id.
   */
  rotate:
    'UPDATE webhook_subscriptions SET previous_secret = IF(? > 0, secret, NULL), previous_until = IF(previous_secret IS NULL, NULL, NOW(3) + INTERVAL ? SECOND), ' +
    "secret = ?, version = version + 1, updated_at = NOW(3) WHERE id = ? AND source = 'api'",

  /** A delivering process saw an attempt fail: the endpoint is failing since then, unless it already was. Values: endpoint. */
  failing: 'UPDATE webhook_subscriptions SET failing_since = COALESCE(failing_since, NOW(3)) WHERE endpoint = ?',
  /** An attempt succeeded: not failing. Values: endpoint. */
  healthy: 'UPDATE webhook_subscriptions SET failing_since = NULL WHERE endpoint = ? AND failing_since IS NOT NULL',
  /** Disabled when it has been failing for `seconds`. Values: seconds, endpoint. */
  disableFailing:
    "UPDATE webhook_subscriptions SET disabled = 1, disabled_reason = 'failing', version = version + 1, updated_at = NOW(3) " +
    "WHERE source = 'api' AND disabled = 0 AND failing_since <= NOW(3) - INTERVAL ? SECOND AND endpoint = ?",
  /** An endpoint answering again: its deliveries waiting for a retry are due now (each user's oldest goes first). Values: endpoint. */
  retryNow: `UPDATE webhook_deliveries SET next_attempt_at = NOW(3) WHERE endpoint = ? AND state = 'pending' AND next_attempt_at > NOW(3) AND next_attempt_at < ${WAITING}`,

  /** Attempts logged. Values per row: endpoint, event id, type, attempted at, succeeded, status, ms, error, body. */
  logAttempts: memoized((count) =>
    'INSERT INTO webhook_attempts (endpoint, event_id, event_type, attempted_at, succeeded, response_status, duration_ms, error, response_body) VALUES ' +
    marks(count, '(?, ?, ?, ?, ?, ?, ?, ?, ?)'),
  ),
  /** Attempts at events no longer kept. Values: the greatest id pruned, limit. */
  pruneAttempts: 'DELETE FROM webhook_attempts WHERE event_id <= ? LIMIT ?',
  /**
   * A page of an endpoint's attempts, newest first, one more than asked (to tell whether a next page
   * exists). Values: endpoint, then each filter present in the order of AttemptFilters, then limit.
   */
  attemptsPage: (filters: AttemptFilters): string =>
    'SELECT id, event_id, event_type, attempted_at, succeeded, response_status, duration_ms, error, response_body ' +
    'FROM webhook_attempts WHERE endpoint = ?' +
    (filters.succeeded ? ' AND succeeded = ?' : '') +
    (filters.eventType ? ' AND event_type = ?' : '') +
    (filters.after ? ' AND attempted_at > ?' : '') +
    (filters.before ? ' AND attempted_at < ?' : '') +
    (filters.cursor ? ' AND id < ?' : '') +
    ' ORDER BY id DESC LIMIT ?',
  /** Values: endpoint, endpoint. */
  stats:
    'SELECT COALESCE(SUM(succeeded), 0) AS succeeded, COALESCE(SUM(1 - succeeded), 0) AS failed, ' +
    "(SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint = ? AND state = 'pending') AS pending FROM webhook_attempts WHERE endpoint = ?",

  /** Where the endpoint's mark is: events after it are still to come by the dispatcher. Values: endpoint. */
  queuedThrough: 'SELECT queued_through FROM webhook_endpoints WHERE endpoint = ?',
  /** The time of the oldest event kept, or null when none is. */
  oldestKept: 'SELECT MIN(occurred_at) AS oldest FROM event_batches WHERE last_id IS NOT NULL',
  /**
   * Up to `limit` batches holding events recorded in [since, until) with ids after one and through
   * another, oldest first. Values: since, until, after, through, limit.
   */
  batchesInWindow:
    'SELECT first_id, last_id, occurred_at, events FROM event_batches WHERE occurred_at >= ? AND occurred_at < ? ' +
    'AND last_id > ? AND first_id <= ? ORDER BY last_id LIMIT ?',
  /** Which of these events the endpoint acknowledged. Values: endpoint, the ids. */
  acknowledged: memoized((count) => `SELECT DISTINCT event_id FROM webhook_attempts WHERE endpoint = ? AND succeeded = 1 AND event_id IN (${marks(count, '?')})`),
  /**
   * Deliveries queued again, each waiting behind its user's earlier pending ones (the first of each
   * user is then made due: webhookSql.stranded and webhookSql.wake). A failed one is pending anew; a pending
   * one is left as it is. Values per row: endpoint, event id, user id.
   */
  requeue: memoized((count) =>
    'INSERT INTO webhook_deliveries (endpoint, event_id, user_id, next_attempt_at) VALUES ' +
    marks(count, `(?, ?, ?, ${WAITING})`) +
    " ON DUPLICATE KEY UPDATE attempts = IF(state = 'failed', 0, attempts), last_error = IF(state = 'failed', NULL, last_error), " +
    `queued_at = IF(state = 'failed', NOW(3), queued_at), next_attempt_at = IF(state = 'failed', ${WAITING}, next_attempt_at), state = 'pending'`,
  ),
} as const;
