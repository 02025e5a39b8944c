import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import type { DbConfig } from '../../../src/config/environment.js';
import { createLogger } from '../../../src/log/logger.js';
import { migrationLockName } from '../../../src/startup/migration-lock.js';
import { ensureSchema } from '../../../src/startup/schema.js';
import type { GaleraCluster } from '../../helpers/galera/galera-cluster.js';
import type { GaleraNode } from '../../helpers/galera/galera-node.js';
import { waitUntil } from '../../helpers/poll-until.js';
import { logged } from '../../migrations/support/schema-state.js';
import { scenarioDatabase } from './cluster-service.js';

/** The schema migrations on a Galera cluster: each scenario runs on the cluster galera.test.ts starts, on its first two nodes. */

const OLD_SCHEMA = readFileSync(join(import.meta.dirname, '..', '..', 'migrations', 'fixtures', 'schema-before-migrations.sql'), 'utf8');
const INDEXES = ['PRIMARY', 'users_created_at', 'users_email', 'users_name'];

function through(node: GaleraNode, database: string): DbConfig {
  return { servers: [{ host: '127.0.0.1', port: node.ports.sql }], user: 'root', password: '', database };
}

function connect(node: GaleraNode): Promise<mysql.Connection> {
  return mysql.createConnection({ host: '127.0.0.1', port: node.ports.sql, user: 'root', multipleStatements: true });
}

/** A database of its own on the cluster, as an older service left it: the old schema.sql's table, seeded. */
async function oldSchema(node: GaleraNode, label: string): Promise<string> {
  const database = scenarioDatabase(label);
  const connection = await connect(node);
  try {
    await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; USE \`${database}\`; ${OLD_SCHEMA}`);
  } finally {
    await connection.end();
  }
  return database;
}

/** The users table's indexes as this node has them, once it applied everything committed before. */
async function indexesOn(node: GaleraNode, database: string): Promise<string[]> {
  const rows = await node.query<Array<{ name: string }>>(
    "SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = ? AND table_name = 'users'",
    [database],
    { causal: true },
  );
  return rows.map((row) => row.name).sort();
}

export async function lockIsLocalToANode(cluster: GaleraCluster): Promise<void> {
  const [first, second] = await Promise.all([connect(cluster.nodes[0]!), connect(cluster.nodes[1]!)]);
  try {
    const [[held]] = await first.query<mysql.RowDataPacket[]>("SELECT GET_LOCK('usvc_probe', 1) AS got");
    assert.equal(held!.got, 1);
    const [[elsewhere]] = await second.query<mysql.RowDataPacket[]>("SELECT IS_FREE_LOCK('usvc_probe') AS free, GET_LOCK('usvc_probe', 0) AS got");
    assert.deepEqual({ ...elsewhere }, { free: 1, got: 1 });
  } finally {
    await Promise.all([first.end(), second.end()]);
  }
}

export async function runnersOnTwoNodesApplyEachOnce(cluster: GaleraCluster): Promise<void> {
  const nodes = cluster.nodes.slice(0, 2);
  const database = await oldSchema(nodes[0]!, 'mig_galera');
  // Each node's lock is held until both runners wait for it, then both are freed together: the runners overlap for certain.
  const holders = await Promise.all(nodes.map(connect));
  const lock = migrationLockName(database);
  await Promise.all(holders.map((holder) => holder.query('SELECT GET_LOCK(?, 10)', [lock])));
  const lines: string[][] = nodes.map(() => []);
  const setups = nodes.map((node, i) => ensureSchema(through(node, database), { logger: createLogger((line) => lines[i]!.push(line)), uniqueEmail: false }));
  try {
    await waitUntil("both runners to wait for their node's lock", () =>
      lines.every((each) => logged(each, 'waiting for another instance to finish the schema migrations').length === 1),
    );
    await Promise.all(holders.map((holder) => holder.query('SELECT RELEASE_LOCK(?)', [lock])));
    await Promise.all(setups);
  } finally {
    await Promise.all(holders.map((holder) => holder.end()));
  }
  const applied = lines.flatMap((each) => logged(each, 'migration applied').map((line) => line.version));
  assert.deepEqual(applied.sort(), [1, 2, 3]);
  for (const node of nodes) {
    assert.deepEqual(await indexesOn(node, database), INDEXES, `${node.name} has every index`);
    const records = await node.query<Array<{ version: number }>>(`SELECT version FROM \`${database}\`.schema_migrations ORDER BY version`, [], { causal: true });
    assert.deepEqual(records.map((record) => record.version), [1, 2, 3], `${node.name} records each once`);
    const users = await node.query<unknown[]>(`SELECT id FROM \`${database}\`.users`, [], { causal: true });
    assert.equal(users.length, 10, `${node.name} kept every row`);
  }
}

export async function ddlInTotalOrderWhereRsuIsTheDefault(cluster: GaleraCluster): Promise<void> {
  const [node1, node2] = cluster.nodes as [GaleraNode, GaleraNode];
  const database = await oldSchema(node1, 'mig_rsu');
  await node1.query("SET GLOBAL wsrep_OSU_method = 'RSU'");
  try {
    await ensureSchema(through(node1, database), { logger: createLogger(() => {}), uniqueEmail: true });
  } finally {
    await node1.query("SET GLOBAL wsrep_OSU_method = 'TOI'");
  }
  assert.deepEqual(await indexesOn(node2, database), [...INDEXES, 'users_email_unique'].sort());
}
