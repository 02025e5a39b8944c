/**
 * `--mode cluster`: the scenarios against the service on one Galera node and on a 3-node Galera
 * cluster (DB_HOST listing the three), in the same run, alternating. Both are private servers with
 * the same settings, started for the run and stopped after it; the one node is a cluster of one, so
 * the difference measured is what replicating every write to two more nodes costs.
 */
import { randomBytes } from 'node:crypto';
import { startGaleraCluster, type GaleraCluster } from '../test/helpers/galera/galera-cluster.js';
import { createBenchDatabase, type BenchDatabase } from './database.js';
import { onCleanup } from './lifecycle.js';
import { chooseLoad } from './load-generator.js';
import { medianRun, type Measurement } from './measurement.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults, type Machine } from './report.js';
import { startService, type RunningService } from './service.js';
import { scenarioNamed } from './workload.js';

interface Target {
  label: string;
  startMs: number;
  db: BenchDatabase;
  service: RunningService;
}

export interface ClusterScenarioResult {
  name: string;
  oneNode: Measurement;
  threeNodes: Measurement;
  oneNodeRuns: Measurement[];
  threeNodeRuns: Measurement[];
  /** 3-node req/s divided by 1-node req/s. */
  ratio: number;
}

export interface ClusterReport {
  date: string;
  machine: Machine;
  options: BenchOptions;
  loadGenerator: string;
  clusterStartMs: { oneNode: number; threeNodes: number };
  scenarios: ClusterScenarioResult[];
}

export async function runCluster(options: BenchOptions): Promise<void> {
  const load = chooseLoad(options.load);
  if (load.note) progress(load.note);
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const oneNode = await target('1 node', 1, password, options);
  const threeNodes = await target('3 nodes', 3, password, options);
  progress(`Galera clusters Synced: 1 node in ${Math.round(oneNode.startMs)} ms, 3 nodes in ${Math.round(threeNodes.startMs)} ms`);

  const scenarios: ClusterScenarioResult[] = [];
  for (const name of options.scenarios) {
    const scenario = scenarioNamed(name);
    const runs: Measurement[][] = [[], []];
    for (let run = 1; run <= options.repeat; run++) {
      for (const [i, side] of [oneNode, threeNodes].entries()) {
        progress(`${name}: ${side.label}${options.repeat > 1 ? ` (${run}/${options.repeat})` : ''}`);
        await side.db.resetUsers(scenario.tableRows);
        runs[i]!.push(await load.measure(side.service.baseUrl, side.service.pid, scenario, password, options));
      }
    }
    const [one, three] = [medianRun(runs[0]!), medianRun(runs[1]!)];
    scenarios.push({ name, oneNode: one, threeNodes: three, oneNodeRuns: runs[0]!, threeNodeRuns: runs[1]!, ratio: three.reqPerSec / one.reqPerSec });
  }
  for (const side of [oneNode, threeNodes]) await side.service.stop();

  const report: ClusterReport = {
    date: new Date().toISOString(),
    machine: describeMachine(await oneNode.db.serverVersion()),
    options,
    loadGenerator: load.label,
    clusterStartMs: { oneNode: Math.round(oneNode.startMs), threeNodes: Math.round(threeNodes.startMs) },
    scenarios,
  };
  console.log(clusterTable(report));
  progress(`results written to ${await writeResults('cluster.json', report)}`);
}

/** A Galera cluster of `size` for the run, its database, and the service on it (DB_HOST listing every node). */
async function target(label: string, size: number, password: string, options: BenchOptions): Promise<Target> {
  progress(`starting a Galera cluster of ${label}`);
  const startedAt = performance.now();
  const cluster: GaleraCluster = await startGaleraCluster(size);
  const startMs = performance.now() - startedAt;
  onCleanup(() => cluster.stop());
  const first = cluster.nodes[0]!;
  const db = await createBenchDatabase({ host: '127.0.0.1', port: first.ports.sql, user: 'root', password: '' }, cluster.hostList());
  onCleanup(() => db.drop());
  const service = await startService(db.config, password, options);
  return { label, startMs, db, service };
}

export function clusterTable(report: ClusterReport): string {
  const row = (name: string, label: string, m: Measurement, ratio: string): string[] => [
    name,
    label,
    fixed(m.reqPerSec, 0),
    fixed(m.p50Ms, 2),
    fixed(m.p99Ms, 2),
    m.errors === 0 ? '0' : String(m.errors),
    m.cpuUsPerOp === null ? '-' : fixed(m.cpuUsPerOp, 0),
    ratio,
  ];
  const rows = report.scenarios.flatMap((s) => [row(s.name, '1 node', s.oneNode, '1.00'), row('', '3 nodes', s.threeNodes, fixed(s.ratio, 2))]);
  const { durationSec, connections, repeat, workers } = report.options;
  return [
    `${machineLine(report.machine)}; ${durationSec} s per run, ${connections} connections, WORKERS=${workers}, load from ${report.loadGenerator}`,
    `Galera clusters of private servers on this machine: 1 node Synced in ${report.clusterStartMs.oneNode} ms, 3 nodes in ${report.clusterStartMs.threeNodes} ms.`,
    repeat > 1 ? `Each row: the median of ${repeat} alternating runs by req/s.` : 'Each row: one run.',
    'CPU us/op: CPU time of the service (all its processes) per successful request.',
    formatTable(['scenario', 'database', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU us/op', 'x 1 node'], rows),
  ].join('\n');
}
