import { eventTables } from './event-statements.js';
import { endpointTables } from './webhook-endpoint-statements.js';
import { marks, memoized } from './statement-shapes.js';
import { limitCountsTable } from './limit-statements.js';

/**
 * Every SQL statement the service sends, in one place, but the list's: those live beside the parser
 * that reads their rows (users/storage/list-statements.ts and list-layout.ts), and change events'
 * (event-statements.ts). Values always travel as parameters (bound
 * by the server; in the streamed reads, which use the text protocol, escaped by mysql2); only
 * identifiers validated at start-up (the database name, a generated table name) and placeholder
 * counts are interpolated. Batch statements are built once per size and reused, so each size is
 * prepared once per connection.
 */

/**
 * users/rules/etag.ts's etagHash in SQL: the MD5 of the stored fields, each string preceded by its length
 * in bytes (-1 for a NULL, which tables made by other clients may hold), and the time with six
 * decimals whatever the column's precision.
 */
export const userEtagSql =
  `MD5(CONCAT_WS(',', id, IFNULL(LENGTH(name), -1), IFNULL(name, ''), IFNULL(LENGTH(email), -1), IFNULL(email, ''), ` +
  `IFNULL(DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s.%f'), '')))`;

/** Every index the service adds is built while the table stays readable and writable. */
const ONLINE = ', ALGORITHM=INPLACE, LOCK=NONE';

function addIndex(index: string, column: string, kind = 'INDEX'): string {
  return `ALTER TABLE users ADD ${kind} IF NOT EXISTS ${index} (${column})${ONLINE}`;
}

export const sql = {
  getUser: 'SELECT id, name, email, created_at FROM users WHERE id = ?',
  createUser: 'INSERT INTO users (name, email) VALUES (?, ?)',
  updateUser: 'UPDATE users SET name = ?, email = ? WHERE id = ?',
  deleteUser: 'DELETE FROM users WHERE id = ?',
  /** Replaces a user only while it still has the ETag hash given last: the check and the write are one statement. */
  updateUserIfTag: `UPDATE users SET name = ?, email = ? WHERE id = ? AND ${userEtagSql} = ?`,
  /** Removes a user only while it still has the ETag hash given last. */
  deleteUserIfTag: `DELETE FROM users WHERE id = ? AND ${userEtagSql} = ?`,
  /** `count` users by id; ids that match no row are simply absent from the result. */
  getUsers: memoized((count) => `SELECT id, name, email, created_at FROM users WHERE id IN (${marks(count, '?')})`),
  /**
   * `count` users in one statement: all are stored or none; its rows are their ids, in the order of
   * the values (MariaDB 10.5+; MySQL refuses RETURNING). Values: name, email per user.
   */
  createUsers: memoized((count) => `INSERT INTO users (name, email) VALUES ${marks(count, '(?, ?)')} RETURNING id`),
  /** The same, each row's creation time returned too (for its change event). */
  createUsersWithTimes: memoized((count) => `INSERT INTO users (name, email) VALUES ${marks(count, '(?, ?)')} RETURNING id, created_at`),
  /**
   * sql.updateUsers, applied only where each row's creation time is still the one given (NULL-safe):
   * its affected rows are the rows found with those times. Values: as updateUsers, then (id, creation time) per user.
   */
  updateUsersWithTimes: memoized(
    (count) =>
      `UPDATE users SET name = CASE id ${marks(count, 'WHEN ? THEN ?', ' ')} END, ` +
      `email = CASE id ${marks(count, 'WHEN ? THEN ?', ' ')} END WHERE id IN (${marks(count, '?')}) ` +
      `AND created_at <=> CASE id ${marks(count, 'WHEN ? THEN ?', ' ')} END`,
  ),
  /** `count` users' creation times, by id (ids that match no row are absent). */
  creationTimes: memoized((count) => `SELECT id, created_at FROM users WHERE id IN (${marks(count, '?')})`),
  /**
   * `count` users replaced in one statement; its affected rows are the rows found (see the pool's
   * FOUND_ROWS flag). Values: (id, name) per user, (id, email) per user, then the ids.
   */
  updateUsers: memoized(
    (count) =>
      `UPDATE users SET name = CASE id ${marks(count, 'WHEN ? THEN ?', ' ')} END, ` +
      `email = CASE id ${marks(count, 'WHEN ? THEN ?', ' ')} END WHERE id IN (${marks(count, '?')})`,
  ),
  /** Readiness: the database answers and the users table has every column the service reads. */
  usersTableAnswers: 'SELECT id, name, email, created_at FROM users LIMIT 1',
  /** A private server is up once it answers this. */
  serverAnswers: 'SELECT 1',
  maxConnections: 'SELECT @@max_connections AS max',
  useUtc: "SET time_zone = '+00:00'",
  setWaitTimeout: 'SET SESSION wait_timeout = ?',
  /**
   * On a Galera node (wsrep_on), reads (1) and updates and deletes (2) first wait until the node
   * applied every write the cluster committed before they began: a read sees every acknowledged
   * write, and an update or delete finds a row created through another node. Elsewhere it stays 0.
   */
  causalReads: 'SET SESSION wsrep_sync_wait = IF(@@wsrep_on, 3, 0)',
  /** A cluster node's health: whether it replicates, and if so whether it is ready, Synced and in the primary component. */
  replicationEnabled: "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'",
  replicationState: "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state_comment', 'wsrep_cluster_status')",
  /** What durability-settings.ts judges; the session's wsrep_sync_wait as this connection has it. */
  durabilitySettings:
    "SHOW VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit', 'sync_binlog', 'log_bin', 'innodb_doublewrite', " +
    "'wsrep_on', 'wsrep_sync_wait', 'wsrep_provider_options')",
  setAutoIncrementStep: 'SET SESSION auto_increment_increment = ?, auto_increment_offset = ?',
  createDatabase: (database: string) =>
    `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  useDatabase: (database: string) => `USE \`${database}\``,
  tableExists: 'SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?',
  renameTable: (from: string, to: string) => `RENAME TABLE \`${from}\` TO \`${to}\``,
  dropTable: (table: string) => `DROP TABLE IF EXISTS \`${table}\``,
  databaseExists: 'SELECT 1 FROM information_schema.schemata WHERE schema_name = ?',
  /**
   * The users table's columns as startup/columns.ts checks them; `chars` is how many characters a
   * character column holds (its bytes over its character set's widest character: a TINYTEXT in
   * utf8mb4 holds 63).
   */
  usersColumns:
    'SELECT c.COLUMN_NAME AS name, c.DATA_TYPE AS type, c.COLUMN_TYPE AS declared, ' +
    'FLOOR(c.CHARACTER_OCTET_LENGTH / cs.MAXLEN) AS chars FROM information_schema.columns c ' +
    'LEFT JOIN information_schema.character_sets cs ON cs.CHARACTER_SET_NAME = c.CHARACTER_SET_NAME ' +
    "WHERE c.TABLE_SCHEMA = DATABASE() AND c.TABLE_NAME = 'users'",
  indexExists:
    "SELECT 1 FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'users' AND index_name = ? LIMIT 1",
  createMigrationsTable:
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INT PRIMARY KEY, name VARCHAR(100) NOT NULL, ' +
    'applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, duration_ms INT NULL) ' +
    'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci',
  appliedMigrations: 'SELECT version FROM schema_migrations',
  /** The version a database is at: the newest migration it recorded (NULL when none is). */
  schemaVersion: 'SELECT MAX(version) AS version FROM schema_migrations',
  /** Ignored when recorded already: by another instance that migrated at the same time, without a shared lock. */
  recordMigration: 'INSERT IGNORE INTO schema_migrations (version, name, duration_ms) VALUES (?, ?, ?)',
  /** 1 once held; 0 when another session held it for the whole wait (seconds); named locks are server-wide. */
  takeNamedLock: 'SELECT GET_LOCK(?, ?) AS got',
  releaseNamedLock: 'SELECT RELEASE_LOCK(?)',
  /** A Galera node replicates this session's DDL in total order, whatever the server's default (see docs/scaling.md). */
  totalOrderDdl: "SET SESSION wsrep_OSU_method = 'TOI'",
  /** Emails used by more than one user, compared as the column's collation compares them (and a unique index would). */
  countDuplicatedEmails: 'SELECT COUNT(*) AS n FROM (SELECT 1 FROM users GROUP BY email HAVING COUNT(*) > 1) AS duplicated',
  /** Not run by the service: the query an operator is told to run to see the duplicates. */
  listDuplicatedEmails: 'SELECT email, COUNT(*) FROM users GROUP BY email HAVING COUNT(*) > 1',
  /** The index that refuses a second user with the same email (UNIQUE_EMAIL=on). */
  addUniqueEmail: addIndex('users_email_unique', 'email', 'UNIQUE INDEX'),
  /**
   * IDEMPOTENCY=on: a key's first answer, written in the transaction of the create it answers, so it
   * exists exactly when the create does, on every node. Only `created_at` within the retention counts.
   */
  recordIdempotencyKey: 'INSERT INTO idempotency_keys (idem_key, request_hash, status, body, location) VALUES (?, ?, ?, ?, ?)',
  idempotencyRecord:
    'SELECT request_hash, status, body, location FROM idempotency_keys WHERE idem_key = ? AND created_at > NOW(6) - INTERVAL ? SECOND',
  /** A key past its retention is free again: its row goes before the key is recorded anew. */
  dropExpiredIdempotencyKey: 'DELETE FROM idempotency_keys WHERE idem_key = ? AND created_at <= NOW(6) - INTERVAL ? SECOND',
  pruneIdempotencyKeys: 'DELETE FROM idempotency_keys WHERE created_at <= NOW(6) - INTERVAL ? SECOND LIMIT 1000',
  /**
   * An index build made while requests are served waits at most this long (seconds) for a
   * transaction that holds the table: a build queued behind one would hold up every request.
   */
  shortLockWait: 'SET SESSION lock_wait_timeout = 1',
  /** How far a session's ALTER TABLE is (MariaDB reports it; MySQL has no PROGRESS column). */
  alterProgress: 'SELECT PROGRESS AS progress FROM information_schema.PROCESSLIST WHERE ID = ?',
  /** The server's estimate of the users table's rows. */
  usersRowEstimate: "SELECT TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'users'",
  /** Not run by the service: how an operator allows duplicates again. */
  dropUniqueEmail: 'ALTER TABLE users DROP INDEX users_email_unique',
} as const;

/** IDEMPOTENCY=on: each Idempotency-Key's first answer (the key compared byte for byte) and when it was given. */
const idempotencyKeysTable =
  'CREATE TABLE IF NOT EXISTS idempotency_keys (idem_key VARBINARY(255) NOT NULL PRIMARY KEY, request_hash BINARY(32) NOT NULL, ' +
  'status SMALLINT NOT NULL, body TEXT NOT NULL, location VARCHAR(255) NULL, ' +
  'created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), INDEX idempotency_keys_created_at (created_at)) ' +
  'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

/** A schema change after schema.sql's base table, applied once per database (startup/migrations.ts). */
export type Migration = IndexMigration | TableMigration;

/**
 * What requests must wait for while a migration runs: `none` (served while it runs: an index only
 * makes some reads faster), `writes` (a create or change would fail without it), `reads` (any API
 * request would). Steps that hold run first, and quickly (a new table); the rest run while serving.
 */
export type Holds = 'none' | 'reads' | 'writes';

interface MigrationStep {
  version: number;
  name: string;
  statement: string;
  holds: Holds;
  /** Applied only where the feature is on: the tables of change events exist only once EVENTS is, the keys' once IDEMPOTENCY is. */
  feature?: keyof SchemaFeatures;
}

export interface IndexMigration extends MigrationStep {
  /** The index it adds, looked up first on a server without ADD INDEX IF NOT EXISTS (MySQL). */
  index: string;
}

/** A new table (CREATE TABLE IF NOT EXISTS). */
export interface TableMigration extends MigrationStep {
  index?: undefined;
}

/** The migrations that add an index. */
export function isIndexMigration(migration: Migration): migration is IndexMigration {
  return migration.index !== undefined;
}

/** In the order they run; a version, once released, never changes. */
export const migrations: readonly Migration[] = [
  // The finding indexes: without them finding users is slower, never wrong.
  { version: 1, name: 'add_users_email', holds: 'none', index: 'users_email', statement: addIndex('users_email', 'email') },
  { version: 2, name: 'add_users_name', holds: 'none', index: 'users_name', statement: addIndex('users_name', 'name') },
  { version: 3, name: 'add_users_created_at', holds: 'none', index: 'users_created_at', statement: addIndex('users_created_at', 'created_at') },
  // Every change records its event in its own transaction, and the stream reads them.
  { version: 4, name: 'create_user_events', holds: 'reads', feature: 'events', statement: eventTables.userEvents },
  { version: 5, name: 'create_event_sequence', holds: 'reads', feature: 'events', statement: eventTables.eventSequence },
  { version: 6, name: 'create_event_leases', holds: 'reads', feature: 'events', statement: eventTables.eventLeases },
  { version: 7, name: 'create_webhook_endpoints', holds: 'reads', feature: 'events', statement: eventTables.webhookEndpoints },
  { version: 8, name: 'create_webhook_deliveries', holds: 'reads', feature: 'events', statement: eventTables.webhookDeliveries },
  { version: 9, name: 'create_event_batches', holds: 'reads', feature: 'events', statement: eventTables.eventBatches },
  // A keyed create writes its key in its own transaction.
  { version: 10, name: 'create_idempotency_keys', holds: 'writes', feature: 'idempotency', statement: idempotencyKeysTable },
  // Read and written by the shared limits' sync only, which starts once every migration is done.
  { version: 11, name: 'create_limit_counts', holds: 'none', feature: 'sharedLimits', statement: limitCountsTable },
  // Webhook endpoints managed through the API, and the log of every attempt.
  { version: 12, name: 'create_webhook_subscriptions', holds: 'reads', feature: 'events', statement: endpointTables.subscriptions },
  { version: 13, name: 'create_webhook_attempts', holds: 'reads', feature: 'events', statement: endpointTables.attempts },
];

/** The optional parts of the schema that are in use. */
export interface SchemaFeatures {
  events: boolean;
  /** Absent counts as off. */
  idempotency?: boolean;
  /** LIMITS_SHARED=on; absent counts as off. */
  sharedLimits?: boolean;
}

/** The migrations that apply with these features, in order. */
export function migrationsFor(features: SchemaFeatures): Migration[] {
  return migrations.filter((migration) => migration.feature === undefined || features[migration.feature] === true);
}

/** An index addition as a server that refuses to build it online runs it: its own choice of algorithm and lock. */
export function lockingForm(statement: string): string {
  return statement.replace(ONLINE, '');
}

/** An index addition for a server without ADD INDEX IF NOT EXISTS (MySQL), once the index is known to be absent. */
export function unconditionalForm(statement: string): string {
  return statement.replace(' IF NOT EXISTS', '');
}
