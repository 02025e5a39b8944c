import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import type { DbConfig } from '../../src/config/environment.js';
import { createLogger } from '../../src/log/logger.js';
import { migrationLockName } from '../../src/startup/migration-lock.js';
import { ensureSchema } from '../../src/startup/schema.js';
import { galeraAvailable, startGaleraCluster, type GaleraCluster } from '../helpers/galera/galera-cluster.js';
import type { GaleraNode } from '../helpers/galera/galera-node.js';
import { waitUntil } from '../helpers/poll-until.js';
import { logged } from '../migrations/support/schema-state.js';
import { scenarioDatabase } from './support/cluster-service.js';

const OLD_SCHEMA = readFileSync(join(import.meta.dirname, '..', 'migrations', 'fixtures', 'schema-before-migrations.sql'), 'utf8');
const INDEXES = ['PRIMARY', 'users_created_at', 'users_email', 'users_name'];

let cluster: GaleraCluster;

function through(node: GaleraNode, database: string): DbConfig {
  return { servers: [{ host: '127.0.0.1', port: node.ports.sql }], user: 'root', password: '', database };
}

function connect(node: GaleraNode): Promise<mysql.Connection> {
  return mysql.createConnection({ host: '127.0.0.1', port: node.ports.sql, user: 'root', multipleStatements: true });
}

/** `database` on the cluster as an older service left it: the old schema.sql's table, seeded. */
async function oldSchema(node: GaleraNode, database: string): Promise<void> {
  const connection = await connect(node);
  try {
    await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; USE \`${database}\`; ${OLD_SCHEMA}`);
  } finally {
    await connection.end();
  }
}

async function indexesOn(node: GaleraNode, database: string): Promise<string[]> {
  const rows = await node.query<Array<{ name: string }>>(
    "SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = ? AND table_name = 'users'",
    [database],
    { causal: true },
  );
  return rows.map((row) => row.name).sort();
}

describe('migrations on a 2-node Galera cluster', { skip: !galeraAvailable() && 'galera-4 or rsync not installed' }, () => {
  before(async () => {
    cluster = await startGaleraCluster(2);
  });
  after(async () => {
    await cluster?.stop();
  });

  test('GET_LOCK on a Galera node is local to it: a lock held through one node is free on the other', async () => {
    const [first, second] = await Promise.all([connect(cluster.nodes[0]!), connect(cluster.nodes[1]!)]);
    try {
      const [[held]] = await first.query<mysql.RowDataPacket[][]>("SELECT GET_LOCK('usvc_probe', 1) AS got");
      assert.equal(held!.got, 1);
      const [[elsewhere]] = await second.query<mysql.RowDataPacket[][]>("SELECT IS_FREE_LOCK('usvc_probe') AS free, GET_LOCK('usvc_probe', 0) AS got");
      assert.deepEqual({ ...elsewhere }, { free: 1, got: 1 });
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  test('set-ups through both nodes at once, each holding its node\'s lock, apply each migration exactly once, and both nodes have every index', async () => {
    const database = scenarioDatabase('mig_galera');
    await oldSchema(cluster.nodes[0]!, database);
    // Each node's lock is held until both runners wait for it, then both are freed together: the runners overlap for certain.
    const holders = await Promise.all(cluster.nodes.map(connect));
    const lock = migrationLockName(database);
    await Promise.all(holders.map((holder) => holder.query('SELECT GET_LOCK(?, 10)', [lock])));
    const lines: string[][] = [[], []];
    const setups = cluster.nodes.map((node, i) =>
      ensureSchema(through(node, database), { logger: createLogger((line) => lines[i]!.push(line)), uniqueEmail: false }),
    );
    try {
      await waitUntil('both runners to wait for their node\'s lock', () =>
        lines.every((each) => logged(each, 'waiting for another instance to finish the schema migrations').length === 1),
      );
      await Promise.all(holders.map((holder) => holder.query('SELECT RELEASE_LOCK(?)', [lock])));
      await Promise.all(setups);
    } finally {
      await Promise.all(holders.map((holder) => holder.end()));
    }
    const applied = lines.flatMap((each) => logged(each, 'migration applied').map((line) => line.version));
    assert.deepEqual(applied.sort(), [1, 2, 3]);
    for (const node of cluster.nodes) {
      assert.deepEqual(await indexesOn(node, database), INDEXES, `${node.name} has every index`);
      const records = await node.query<Array<{ version: number }>>(`SELECT version FROM \`${database}\`.schema_migrations ORDER BY version`, [], { causal: true });
      assert.deepEqual(records.map((record) => record.version), [1, 2, 3], `${node.name} records each once`);
      const users = await node.query<unknown[]>(`SELECT id FROM \`${database}\`.users`, [], { causal: true });
      assert.equal(users.length, 10, `${node.name} kept every row`);
    }
  });

  test('the service\'s DDL replicates in total order even when the node defaults to RSU, so an index recorded as applied exists on every node', async () => {
    const database = scenarioDatabase('mig_rsu');
    const [node1, node2] = cluster.nodes as [GaleraNode, GaleraNode];
    await oldSchema(node1, database);
    await node1.query("SET GLOBAL wsrep_OSU_method = 'RSU'");
    try {
      await ensureSchema(through(node1, database), { logger: createLogger(() => {}), uniqueEmail: true });
    } finally {
      await node1.query("SET GLOBAL wsrep_OSU_method = 'TOI'");
    }
    assert.deepEqual(await indexesOn(node2, database), [...INDEXES, 'users_email_unique'].sort());
  });
});
