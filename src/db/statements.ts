/**
 * Every SQL statement the service sends, in one place. Values always travel as parameters;
 * only identifiers validated at start-up (the database name, a generated table name) are
 * interpolated.
 */
export const sql = {
  listUsers: 'SELECT id, name, email, created_at FROM users ORDER BY id',
  getUser: 'SELECT id, name, email, created_at FROM users WHERE id = ?',
  createUser: 'INSERT INTO users (name, email) VALUES (?, ?)',
  updateUser: 'UPDATE users SET name = ?, email = ? WHERE id = ?',
  deleteUser: 'DELETE FROM users WHERE id = ?',
  ping: 'SELECT 1',
  useUtc: "SET time_zone = '+00:00'",
  setWaitTimeout: 'SET SESSION wait_timeout = ?',
  createDatabase: (database: string) =>
    `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  tableExists: 'SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?',
  renameTable: (from: string, to: string) => `RENAME TABLE \`${from}\` TO \`${to}\``,
  dropTable: (table: string) => `DROP TABLE IF EXISTS \`${table}\``,
} as const;
