import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { riskySettings } from '../../src/db/durability-settings.js';

const rows = (values: Record<string, string>) => Object.entries(values).map(([Variable_name, Value]) => ({ Variable_name, Value }));
const safe = { innodb_flush_log_at_trx_commit: '1', log_bin: 'OFF', sync_binlog: '0', innodb_doublewrite: 'ON', wsrep_on: 'OFF' };
const galera = { ...safe, wsrep_on: 'ON', wsrep_sync_wait: '3', wsrep_provider_options: 'gcache.size = 128M; pc.ignore_sb = false; pc.recovery = true' };

describe('durability settings: which put acknowledged writes (or fresh reads) at risk', () => {
  const table: Array<[string, Record<string, string>, string[]]> = [
    ['the defaults of a single MariaDB', safe, []],
    ['MySQL (no wsrep variables)', { innodb_flush_log_at_trx_commit: '1', log_bin: 'ON', sync_binlog: '1', innodb_doublewrite: 'ON' }, []],
    ['innodb_flush_log_at_trx_commit=2', { ...safe, innodb_flush_log_at_trx_commit: '2' }, ['innodb_flush_log_at_trx_commit']],
    ['innodb_flush_log_at_trx_commit=0', { ...safe, innodb_flush_log_at_trx_commit: '0' }, ['innodb_flush_log_at_trx_commit']],
    ['binary log on, sync_binlog=0', { ...safe, log_bin: 'ON' }, ['sync_binlog']],
    ['binary log off, sync_binlog=0 (no binary log to lose)', safe, []],
    ['innodb_doublewrite off', { ...safe, innodb_doublewrite: 'OFF' }, ['innodb_doublewrite']],
    ['a Galera node as the service prepares its sessions', galera, []],
    ['a Galera session without causal reads', { ...galera, wsrep_sync_wait: '0' }, ['wsrep_sync_wait']],
    ['pc.ignore_sb=true', { ...galera, wsrep_provider_options: 'pc.ignore_sb = true' }, ['wsrep_provider_options pc.ignore_sb']],
    ['pc.ignore_quorum=1', { ...galera, wsrep_provider_options: 'gcache.size=1G;pc.ignore_quorum=1' }, ['wsrep_provider_options pc.ignore_quorum']],
  ];
  for (const [label, values, expected] of table) {
    test(`${label} -> ${expected.length === 0 ? 'nothing risky' : expected.join(', ')}`, () => {
      const found = riskySettings(rows(values));
      assert.deepEqual(found.map((each) => each.setting), expected);
      for (const each of found) assert.ok(each.risk.length > 20, 'each names what it risks');
    });
  }
});
