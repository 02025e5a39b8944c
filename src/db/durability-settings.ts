/** A server setting that lets an acknowledged write be lost or a read be stale, and what it risks. */
export interface RiskySetting {
  setting: string;
  value: string;
  risk: string;
}

type VariableRow = { Variable_name: string; Value: string };

/**
 * The settings of statements.ts's durabilitySettings that put acknowledged writes at risk, with
 * what each risks (the Jepsen 2026 analysis of MariaDB Galera advises innodb_flush_log_at_trx_commit=1).
 * `wsrep_sync_wait` is this connection's own, once the session was prepared: causal reads need its bit 1.
 */
export function riskySettings(rows: readonly VariableRow[]): RiskySetting[] {
  const values = new Map(rows.map((row) => [row.Variable_name.toLowerCase(), row.Value]));
  const on = (name: string): boolean => ['ON', '1'].includes(values.get(name)?.toUpperCase() ?? '');
  const risky: RiskySetting[] = [];
  const add = (setting: string, risk: string): void => void risky.push({ setting, value: values.get(setting) ?? '', risk });

  const flush = values.get('innodb_flush_log_at_trx_commit');
  if (flush !== undefined && flush !== '1') {
    add('innodb_flush_log_at_trx_commit', 'commits acknowledged in the last second or so are lost if the server (at 0: even just mariadbd) crashes; on a Galera cluster, if every node does');
  }
  if (on('log_bin') && values.get('sync_binlog') === '0') {
    add('sync_binlog', 'the binary log is not flushed at commit: after a crash it may lack acknowledged transactions that replicas and point-in-time recovery need');
  }
  if (values.get('innodb_doublewrite')?.toUpperCase() === 'OFF') {
    add('innodb_doublewrite', 'a crash during a page write can leave a torn page that InnoDB cannot repair');
  }
  if (on('wsrep_on')) {
    const syncWait = Number(values.get('wsrep_sync_wait') ?? '0');
    if ((syncWait & 1) === 0) add('wsrep_sync_wait', 'reads do not wait for writes the cluster committed through other nodes: a read may miss an acknowledged write');
    for (const option of ['pc.ignore_sb', 'pc.ignore_quorum']) {
      const value = providerOption(values.get('wsrep_provider_options') ?? '', option);
      if (value !== undefined && ['1', 'TRUE', 'YES', 'ON'].includes(value.toUpperCase())) {
        risky.push({ setting: `wsrep_provider_options ${option}`, value, risk: 'both sides of a partition keep accepting writes (split brain): conflicting writes are lost when they rejoin' });
      }
    }
  }
  return risky;
}

/** One option of Galera's `name = value; name = value` list. */
function providerOption(options: string, name: string): string | undefined {
  for (const pair of options.split(';')) {
    const [key, value] = pair.split('=').map((part) => part.trim());
    if (key === name) return value;
  }
  return undefined;
}
