/**
 * The shared limits' statements (src/limits/shared/): one row per key, window and instance, written
 * only by that instance, so that no two database nodes ever write one row (no Galera certification
 * conflict). Times are ms since the epoch, as the instances count them.
 */

/** Each instance's spending (`used`) and allowance (`claim`) per key and window; `name` '' is an instance's heartbeat. */
export const limitCountsTable =
  'CREATE TABLE IF NOT EXISTS limit_counts (name VARCHAR(200) NOT NULL, window_start BIGINT NOT NULL, instance CHAR(32) NOT NULL, ' +
  'used INT UNSIGNED NOT NULL, claim INT UNSIGNED NOT NULL, blocked_until BIGINT NOT NULL DEFAULT 0, expires_at BIGINT NOT NULL, ' +
  'PRIMARY KEY (name, window_start, instance), INDEX limit_counts_expires_at (expires_at)) ' +
  'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

const COLUMNS = '(name, window_start, instance, used, claim, blocked_until, expires_at)';

/** This instance's rows as absolute values (repeating the statement changes nothing). */
function upsert(rows: number): string {
  return (
    `INSERT INTO limit_counts ${COLUMNS} VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?, ?)').join(', ')} ` +
    'ON DUPLICATE KEY UPDATE used = VALUES(used), claim = VALUES(claim), blocked_until = VALUES(blocked_until), expires_at = VALUES(expires_at)'
  );
}

/** Values: now, this instance, the moment before which any instance's rows are abandoned. */
const prune = 'DELETE FROM limit_counts WHERE expires_at < ? AND (instance = ? OR expires_at < ?) LIMIT 10000';

/**
 * Every instance's rows for the names, summed per window; values: this instance twice, the names, now.
 * A plain read, taking no lock: only the rows' own writers ever lock them.
 */
function sums(names: number): string {
  return (
    'SELECT name, window_start, SUM(used) AS used, SUM(claim) AS claim, COUNT(*) AS counting, SUM(instance < ?) AS rank_below, ' +
    'SUM(instance <> ? AND claim > 0 AND used >= claim) AS others_full, MAX(blocked_until) AS blocked_until ' +
    `FROM limit_counts WHERE name IN (${Array(names).fill('?').join(', ')}) AND expires_at > ? GROUP BY name, window_start`
  );
}

const built = new Map<string, string>();

/** One sync's round trip: the upsert, the prune when due, then the sums (a query of several statements). */
export function limitSyncStatement(rows: number, names: number, pruning: boolean): string {
  const key = `${rows}/${names}/${pruning}`;
  let statement = built.get(key);
  if (statement === undefined) {
    statement = [...(rows > 0 ? [upsert(rows)] : []), ...(pruning ? [prune] : []), ...(names > 0 ? [sums(names)] : [])].join('; ');
    if (built.size > 1000) built.clear();
    built.set(key, statement);
  }
  return statement;
}
