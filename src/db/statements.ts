/**
 * Every SQL statement the service sends, in one place, but the list's: those live beside the parser
 * that reads their rows (users/storage/list-statements.ts and list-layout.ts). Values always travel as parameters (bound
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
  /**
   * `count` users replaced in one statement; its affected rows are the rows found (see the pool's
   * FOUND_ROWS flag). Values: (id, name) per user, (id, email) per user, then the ids.
   */
  updateUsers: memoized(
    (count) =>
      `UPDATE users SET name = CASE id ${marks(count, 'WHEN ? THEN ?', ' ')} END, ` +
      `email = CASE id ${marks(count, 'WHEN ? THEN ?', ' ')} END WHERE id IN (${marks(count, '?')})`,
  ),
  /** Readiness: the database answers and the users table is there. */
  usersTableAnswers: 'SELECT 1 FROM users LIMIT 1',
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
  /** A cluster node's health: whether it replicates, and if so whether it is ready and Synced. */
  replicationEnabled: "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'",
  replicationState: "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state_comment')",
  setAutoIncrementStep: 'SET SESSION auto_increment_increment = ?, auto_increment_offset = ?',
  createDatabase: (database: string) =>
    `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  useDatabase: (database: string) => `USE \`${database}\``,
  tableExists: 'SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?',
  renameTable: (from: string, to: string) => `RENAME TABLE \`${from}\` TO \`${to}\``,
  dropTable: (table: string) => `DROP TABLE IF EXISTS \`${table}\``,
} as const;

function marks(count: number, group: string, separator = ', '): string {
  return Array.from({ length: count }, () => group).join(separator);
}

function memoized(build: (count: number) => string): (count: number) => string {
  const built = new Map<number, string>();
  return (count) => {
    let statement = built.get(count);
    if (statement === undefined) built.set(count, (statement = build(count)));
    return statement;
  };
}
