/**
 * The statements of webhook delivery (WEBHOOK_URLS), beside event-statements.ts's and written the
 * same way: values travel as parameters, batch statements are built once per size.
 */
import { SEQUENCE_ROW } from './event-statements.js';
import { marks, memoized } from './statement-shapes.js';

/**
 * `next_attempt_at` of a delivery waiting behind an earlier one of the same user: far enough ahead
 * that the due deliveries' index range never holds it, until webhookSql.promoteNext makes it the
 * user's next (TIMESTAMP ends in January 2038 on the servers supported).
 */
const WAITING = "'2038-01-01 00:00:00.000'";

/** A failed delivery sent again: pending, due now, with a new retry period. */
const RESENT = "state = 'pending', attempts = 0, queued_at = NOW(3), next_attempt_at = NOW(3)";

/** A due delivery is the oldest pending one of its user: per user and endpoint, events go out in id order. */
const OLDEST_OF_ITS_USER =
  "NOT EXISTS (SELECT 1 FROM webhook_deliveries o WHERE o.endpoint = d.endpoint AND o.user_id = d.user_id AND o.state = 'pending' AND o.event_id < d.event_id)";

/**
 * Webhook delivery (src/events/webhooks/). Each endpoint's row says through which event id the
 * outbox has been handled for it: acknowledged, or queued in webhook_deliveries. Only the holder of
 * the endpoint's lease writes either, and every write of the mark names the value it read, so a
 * process that lost the lease without noticing changes nothing.
 */
export const webhookSql = {
  /** An endpoint seen for the first time starts after the last event recorded so far: history is not replayed. */
  addEndpoint:
    'INSERT IGNORE INTO webhook_endpoints (endpoint, url, queued_through) ' +
    `VALUES (?, ?, COALESCE((SELECT last_id FROM event_sequence WHERE id = ${SEQUENCE_ROW}), 0))`,
  queuedThrough: 'SELECT queued_through FROM webhook_endpoints WHERE endpoint = ?',
  /** Moves the mark on from where the holder read it; matches no row if another process moved it meanwhile. Values: new, endpoint, old. */
  advance: 'UPDATE webhook_endpoints SET queued_through = ? WHERE endpoint = ? AND queued_through = ?',
  /** Which of these users have a delivery pending to the endpoint (their next events queue behind it). Values: endpoint, the ids. */
  usersWithPending: memoized(
    (count) => `SELECT DISTINCT user_id FROM webhook_deliveries WHERE endpoint = ? AND state = 'pending' AND user_id IN (${marks(count, '?')})`,
  ),
  /** The same, locking those rows until commit, so a delivery finishing meanwhile cannot leave new rows waiting behind nothing. */
  lockUsersWithPending: memoized(
    (count) =>
      `SELECT DISTINCT user_id FROM webhook_deliveries WHERE endpoint = ? AND state = 'pending' AND user_id IN (${marks(count, '?')}) FOR UPDATE`,
  ),
  /**
   * Queues deliveries. Values per row: endpoint, event id, user id, attempts made, last error, and
   * the seconds until the next attempt, or null to wait behind the user's earlier delivery.
   */
  queue: memoized(
    (count) =>
      'INSERT INTO webhook_deliveries (endpoint, event_id, user_id, attempts, last_error, next_attempt_at) VALUES ' +
      marks(count, `(?, ?, ?, ?, ?, COALESCE(NOW(3) + INTERVAL ? SECOND, ${WAITING}))`),
  ),
  /**
   * Up to `limit` deliveries due now, each its user's oldest pending one, soonest first, with how
   * long ago it was queued (the events to send are read from the outbox by id). Values: endpoint, limit.
   */
  due:
    'SELECT d.event_id AS id, d.user_id, d.attempts, TIMESTAMPDIFF(MICROSECOND, d.queued_at, NOW(3)) AS age_us ' +
    `FROM webhook_deliveries d WHERE d.endpoint = ? AND d.state = 'pending' AND d.next_attempt_at <= NOW(3) AND ${OLDEST_OF_ITS_USER} ` +
    'ORDER BY d.next_attempt_at, d.event_id LIMIT ?',
  /** Acknowledged: the row goes. Each change of a row names the attempts it read. Values: endpoint, event id, attempts. */
  delivered: "DELETE FROM webhook_deliveries WHERE endpoint = ? AND event_id = ? AND state = 'pending' AND attempts = ?",
  /** Values: last error, seconds until the next attempt, endpoint, event id, attempts. */
  retryLater:
    "UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = ?, next_attempt_at = NOW(3) + INTERVAL ? SECOND WHERE endpoint = ? AND event_id = ? AND state = 'pending' AND attempts = ?",
  /** The retry period is over. Values: last error, endpoint, event id, attempts. */
  giveUp: "UPDATE webhook_deliveries SET state = 'failed', attempts = attempts + 1, last_error = ? WHERE endpoint = ? AND event_id = ? AND state = 'pending' AND attempts = ?",
  /** After a user's oldest pending delivery went (delivered or failed): the next one, if waiting, is due now. Values: endpoint, user id. */
  promoteNext:
    `UPDATE webhook_deliveries SET next_attempt_at = IF(next_attempt_at >= ${WAITING}, NOW(3), next_attempt_at) ` +
    "WHERE endpoint = ? AND user_id = ? AND state = 'pending' ORDER BY event_id LIMIT 1",

  /**
   * Waiting deliveries with no earlier pending one of their user left: none should exist (see
   * promoteNext), but one left waiting behind nothing would wait for ever. Values: endpoint, limit.
   */
  stranded:
    `SELECT d.event_id FROM webhook_deliveries d WHERE d.endpoint = ? AND d.state = 'pending' AND d.next_attempt_at >= ${WAITING} ` +
    `AND ${OLDEST_OF_ITS_USER} ORDER BY d.event_id LIMIT ?`,
  /** Makes these waiting deliveries due now. Values: endpoint, the ids. */
  wake: memoized(
    (count) => `UPDATE webhook_deliveries SET next_attempt_at = NOW(3) WHERE endpoint = ? AND state = 'pending' AND next_attempt_at >= ${WAITING} AND event_id IN (${marks(count, '?')})`,
  ),
  /** The operator's tools (npm run webhooks): every endpoint ever seen. */
  endpoints: 'SELECT endpoint, url FROM webhook_endpoints ORDER BY url',
  /**
   * Every endpoint with its pending and failed deliveries counted, and whether a process delivers
   * to it now (holds its lease, `webhook:<endpoint>`: see endpoint-worker.ts), with its id, source
   * and state where webhook_subscriptions lists it. For the gauges, the start-up check and the
   * operator's tools; the counts read the (endpoint, state, ...) index.
   */
  endpointCounts:
    "SELECT w.endpoint, COALESCE(s.url, w.url) AS url, s.id, COALESCE(s.source, 'env') AS source, COALESCE(s.disabled, 0) AS disabled, " +
    "COUNT(CASE WHEN d.state = 'pending' THEN 1 END) AS pending, COUNT(CASE WHEN d.state = 'failed' THEN 1 END) AS failed, " +
    "EXISTS (SELECT 1 FROM event_leases l WHERE l.name = CONCAT('webhook:', w.endpoint) AND l.expires_at >= NOW(3)) AS delivered " +
    'FROM webhook_endpoints w LEFT JOIN webhook_subscriptions s ON s.endpoint = w.endpoint LEFT JOIN webhook_deliveries d ON d.endpoint = w.endpoint ' +
    'GROUP BY w.endpoint, w.url, s.url, s.id, s.source, s.disabled ORDER BY url',
  /** Whether a process delivers to the endpoint now (holds its lease). Values: endpoint. */
  endpointDelivered: "SELECT 1 FROM event_leases WHERE name = CONCAT('webhook:', ?) AND expires_at >= NOW(3)",
  /**
   * A page of an endpoint's pending deliveries after an event id: attempts, last error, and when it
   * is next tried, or the user's earlier pending delivery it waits behind (`behind`); the events'
   * types are read from the outbox by id. Values: endpoint, after, limit.
   */
  pendingPage:
    'SELECT d.event_id, d.user_id, d.attempts, d.last_error, d.next_attempt_at, ' +
    'TIMESTAMPDIFF(SECOND, NOW(3), d.next_attempt_at) AS in_seconds, ' +
    "(SELECT MAX(o.event_id) FROM webhook_deliveries o WHERE o.endpoint = d.endpoint AND o.user_id = d.user_id AND o.state = 'pending' AND o.event_id < d.event_id) AS behind " +
    "FROM webhook_deliveries d WHERE d.endpoint = ? AND d.state = 'pending' AND d.event_id > ? " +
    'ORDER BY d.event_id LIMIT ?',
  /** Up to `limit` of an endpoint's deliveries, pending or failed, removed. Values: endpoint, limit. */
  dropDeliveries: 'DELETE FROM webhook_deliveries WHERE endpoint = ? LIMIT ?',
  /** The endpoint forgotten: configured again, it starts at the last event recorded then. Values: endpoint. */
  dropEndpoint: 'DELETE FROM webhook_endpoints WHERE endpoint = ?',
  /** Deliveries of one endpoint (the second value) that the other (the first) already has, removed before a move. */
  dropMovedTwice:
    'DELETE s FROM webhook_deliveries s JOIN webhook_deliveries t ON t.endpoint = ? AND t.event_id = s.event_id WHERE s.endpoint = ?',
  /**
   * Up to `limit` of an endpoint's deliveries handed to another, pending anew (attempts reset, a new
   * retry period), each waiting until its user's earlier ones went (webhookSql.stranded finds the
   * first of each). Values: the new endpoint, the old one, limit.
   */
  moveDeliveries:
    "UPDATE webhook_deliveries SET endpoint = ?, state = 'pending', attempts = 0, last_error = NULL, queued_at = NOW(3), " +
    `next_attempt_at = ${WAITING} WHERE endpoint = ? ORDER BY event_id LIMIT ?`,
  /** A page of an endpoint's failed deliveries after an event id (the events' types are read from the outbox by id). Values: endpoint, after, limit. */
  failedPage:
    'SELECT d.event_id, d.user_id, d.attempts, d.last_error, d.queued_at FROM webhook_deliveries d ' +
    "WHERE d.endpoint = ? AND d.state = 'failed' AND d.event_id > ? ORDER BY d.event_id LIMIT ?",
  /** Which of these events have a failed delivery to the endpoint. Values: endpoint, the ids. */
  failedOf: memoized(
    (count) => `SELECT event_id FROM webhook_deliveries WHERE endpoint = ? AND state = 'failed' AND event_id IN (${marks(count, '?')})`,
  ),
  /** Failed deliveries pending again, due now, attempts reset: a new retry period. Values: endpoint, the ids. */
  resendEvents: memoized(
    (count) => `UPDATE webhook_deliveries SET ${RESENT} WHERE endpoint = ? AND state = 'failed' AND event_id IN (${marks(count, '?')})`,
  ),
  /** Which of these events have a pending delivery to the endpoint. Values: endpoint, the ids. */
  pendingOf: memoized(
    (count) => `SELECT event_id FROM webhook_deliveries WHERE endpoint = ? AND state = 'pending' AND event_id IN (${marks(count, '?')})`,
  ),
  /**
   * These pending deliveries due now instead of at their scheduled retry (one waiting behind its
   * user's earlier delivery keeps waiting: it goes right after). Values: endpoint, the ids.
   */
  retryEvents: memoized(
    (count) => `UPDATE webhook_deliveries SET next_attempt_at = NOW(3) WHERE endpoint = ? AND state = 'pending' AND next_attempt_at > NOW(3) AND next_attempt_at < ${WAITING} AND event_id IN (${marks(count, '?')})`,
  ),
  /** The same for up to `limit` of an endpoint's failed deliveries, oldest first. Values: endpoint, limit. */
  resendAll: `UPDATE webhook_deliveries SET ${RESENT} WHERE endpoint = ? AND state = 'failed' ORDER BY event_id LIMIT ?`,
} as const;
