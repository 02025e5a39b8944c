import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NOT_PRIMARY, NOT_SYNCED, replicationStatus, unusableReason } from '../../src/db/cluster/node-health.js';
import { retryPauseMs, wasRolledBack } from '../../src/db/mysql-errors.js';

const row = (name: string, value: string) => ({ Variable_name: name, Value: value });

describe('a database server is usable unless it is a Galera node that is not ready, Synced and Primary; the reason says which', () => {
  const rows: Array<[string, ReturnType<typeof row>[], ReturnType<typeof row>[], string | undefined]> = [
    ['MySQL (no wsrep variables)', [], [], undefined],
    ['MariaDB without Galera (wsrep_on OFF)', [row('wsrep_on', 'OFF')], [row('wsrep_ready', 'OFF')], undefined],
    ['Galera, ready, Synced and Primary', [row('wsrep_on', 'ON')], [row('wsrep_ready', 'ON'), row('wsrep_local_state_comment', 'Synced'), row('wsrep_cluster_status', 'Primary')], undefined],
    ['Galera, ready and Synced but non-Primary (cut off from the majority)', [row('wsrep_on', 'ON')], [row('wsrep_ready', 'ON'), row('wsrep_local_state_comment', 'Synced'), row('wsrep_cluster_status', 'non-Primary')], NOT_PRIMARY],
    ['Galera, ready and Synced, cluster status not reported', [row('wsrep_on', 'ON')], [row('wsrep_ready', 'ON'), row('wsrep_local_state_comment', 'Synced')], NOT_PRIMARY],
    ['Galera, joining', [row('wsrep_on', 'ON')], [row('wsrep_ready', 'OFF'), row('wsrep_local_state_comment', 'Joining'), row('wsrep_cluster_status', 'Primary')], NOT_SYNCED],
    ['Galera, donor', [row('wsrep_on', 'ON')], [row('wsrep_ready', 'ON'), row('wsrep_local_state_comment', 'Donor/Desynced'), row('wsrep_cluster_status', 'Primary')], NOT_SYNCED],
    ['Galera, not ready though Synced', [row('wsrep_on', 'ON')], [row('wsrep_ready', 'OFF'), row('wsrep_local_state_comment', 'Synced'), row('wsrep_cluster_status', 'Primary')], NOT_SYNCED],
    ['Galera, cut off while still Synced (the first status seen on leaving)', [row('wsrep_on', 'ON')], [row('wsrep_ready', 'OFF'), row('wsrep_local_state_comment', 'Synced'), row('wsrep_cluster_status', 'non-Primary')], NOT_PRIMARY],
    ['Galera, joining again after being cut off', [row('wsrep_on', 'ON')], [row('wsrep_ready', 'OFF'), row('wsrep_local_state_comment', 'Joining: receiving State Transfer'), row('wsrep_cluster_status', 'non-Primary')], NOT_PRIMARY],
  ];
  for (const [label, enabled, state, reason] of rows) {
    test(`${label} -> ${reason === undefined ? 'usable' : `left out: ${reason}`}`, () => {
      assert.equal(unusableReason(replicationStatus(enabled, state)), reason);
    });
  }
});

describe('statements the server rolled back whole are run again; others are not', () => {
  const rows: Array<[string, unknown, boolean]> = [
    ['1213 deadlock or certification conflict', { errno: 1213, sqlState: '40001' }, true],
    ['1047 WSREP node not prepared', { errno: 1047, sqlState: '08S01' }, true],
    ['no cluster server online (nothing sent)', { code: 'POOL_NONEONLINE' }, true],
    ['1406 data too long (would fail again)', { errno: 1406, sqlState: '22001' }, false],
    ['connection lost (outcome unknown)', { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }, false],
    ['not an error object', undefined, false],
  ];
  for (const [label, error, retried] of rows) {
    test(`${label} -> ${retried ? 'run again' : 'not run again'}`, () => assert.equal(wasRolledBack(error), retried));
  }

  test('1047 once a write or its commit reached the node -> not run again: it may have replicated before the node left', () => {
    assert.equal(wasRolledBack({ errno: 1047, sqlState: '08S01' }, true), false);
    assert.equal(wasRolledBack({ errno: 1213, sqlState: '40001' }, true), true);
  });

  test('the pause before running again is short and random', () => {
    const pauses = Array.from({ length: 50 }, retryPauseMs);
    assert.ok(pauses.every((ms) => ms >= 10 && ms < 50));
    assert.ok(new Set(pauses).size > 1);
  });
});
