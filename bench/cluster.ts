/**
 * `--mode cluster`: the scenarios against the service on one server and on a 3-node Galera cluster
 * (DB_HOST listing the three), in the same run, alternating. All are private servers with the same
 * InnoDB settings, started for the run and stopped after it, so the difference measured is what
 * replication costs. The one server is a plain one rather than a Galera cluster of one: there,
 * every causal read waited up to 0.4 s (see docs/scaling.md), which no real deployment would see.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostPort } from '../src/config/environment.js';
import { startPrivateServer } from '../src/embedded-db/index.js';
import { freePorts } from '../test/helpers/free-ports.js';
import { startGaleraCluster } from '../test/helpers/galera/galera-cluster.js';
import { GALERA_INNODB_ARGS } from '../test/helpers/galera/galera-node.js';
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
  oneServer: Measurement;
  threeNodes: Measurement;
  oneServerRuns: Measurement[];
  threeNodeRuns: Measurement[];
  /** 3-node req/s divided by the one server's. */
  ratio: number;
}

export interface ClusterReport {
  date: string;
  machine: Machine;
  options: BenchOptions;
  loadGenerator: string;
  clusterStartMs: { oneServer: number; threeNodes: number };
  scenarios: ClusterScenarioResult[];
}

export async function runCluster(options: BenchOptions): Promise<void> {
  const load = chooseLoad(options.load);
  if (load.note) progress(load.note);
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const oneServer = await target('1 server', startPlainServer, password, options);
  const threeNodes = await target('3 nodes', startThreeNodes, password, options);
  progress(`private servers up: 1 server in ${Math.round(oneServer.startMs)} ms, 3 Galera nodes Synced in ${Math.round(threeNodes.startMs)} ms`);

  const scenarios: ClusterScenarioResult[] = [];
  for (const name of options.scenarios) {
    const scenario = scenarioNamed(name);
    const runs: Measurement[][] = [[], []];
    for (let run = 1; run <= options.repeat; run++) {
      for (const [i, side] of [oneServer, threeNodes].entries()) {
        progress(`${name}: ${side.label}${options.repeat > 1 ? ` (${run}/${options.repeat})` : ''}`);
        await side.db.resetUsers(scenario.tableRows);
        runs[i]!.push(await load.measure(side.service.baseUrl, { server: side.service.pid }, scenario, password, options));
      }
    }
    const [one, three] = [medianRun(runs[0]!), medianRun(runs[1]!)];
    scenarios.push({ name, oneServer: one, threeNodes: three, oneServerRuns: runs[0]!, threeNodeRuns: runs[1]!, ratio: three.reqPerSec / one.reqPerSec });
  }
  for (const side of [oneServer, threeNodes]) await side.service.stop();

  const report: ClusterReport = {
    date: new Date().toISOString(),
    machine: describeMachine(await oneServer.db.serverVersion()),
    options,
    loadGenerator: load.label,
    clusterStartMs: { oneServer: Math.round(oneServer.startMs), threeNodes: Math.round(threeNodes.startMs) },
    scenarios,
  };
  console.log(clusterTable(report));
  progress(`results written to ${await writeResults('cluster.json', report)}`);
}

interface Started {
  /** Where the table is reset from. */
  port: number;
  /** The servers the service lists in DB_HOST. */
  servers: HostPort[];
}

/** One plain private server with the Galera nodes' InnoDB settings. */
async function startPlainServer(): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'usvc-bench-server-'));
  const [port] = await freePorts(1);
  const server = await startPrivateServer({ dataDir: join(dir, 'data'), port: port!, extraArgs: GALERA_INNODB_ARGS });
  onCleanup(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { port: port!, servers: [{ host: '127.0.0.1', port: port! }] };
}

async function startThreeNodes(): Promise<Started> {
  const cluster = await startGaleraCluster(3);
  onCleanup(() => cluster.stop());
  return { port: cluster.nodes[0]!.ports.sql, servers: cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.ports.sql })) };
}

/** The database servers, the benchmark's database on them, and the service (DB_HOST listing every server). */
async function target(label: string, start: () => Promise<Started>, password: string, options: BenchOptions): Promise<Target> {
  progress(`starting ${label}`);
  const startedAt = performance.now();
  const started = await start();
  const startMs = performance.now() - startedAt;
  const db = await createBenchDatabase({ host: '127.0.0.1', port: started.port, user: 'root', password: '' }, started.servers);
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
  const rows = report.scenarios.flatMap((s) => [row(s.name, '1 server', s.oneServer, '1.00'), row('', '3 nodes', s.threeNodes, fixed(s.ratio, 2))]);
  const { durationSec, connections, repeat, workers } = report.options;
  return [
    `${machineLine(report.machine)}; ${durationSec} s per run, ${connections} connections, WORKERS=${workers}, load from ${report.loadGenerator}`,
    `Private servers on this machine: 1 plain server up in ${report.clusterStartMs.oneServer} ms, a 3-node Galera cluster Synced in ${report.clusterStartMs.threeNodes} ms.`,
    repeat > 1 ? `Each row: the median of ${repeat} alternating runs by req/s.` : 'Each row: one run.',
    'CPU us/op: CPU time of the service (all its processes) per successful request.',
    formatTable(['scenario', 'database', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU us/op', 'x 1 server'], rows),
  ].join('\n');
}
