import { randomBytes } from 'node:crypto';
import { measureDbDirect, startHttpNoop } from './ceilings.js';
import { createBenchDatabase } from './database.js';
import { onCleanup } from './lifecycle.js';
import { chooseLoad } from './load-generator.js';
import type { Measurement } from './measurement.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults, type Machine } from './report.js';
import { startService } from './service.js';
import { scenarioNamed } from './workload.js';

export interface ScenarioResult {
  name: string;
  tableRows: number;
  service: Measurement;
  dbDirect: Measurement;
  /** Service req/s divided by the ceiling's. */
  ratioToHttpNoop: number;
  ratioToDbDirect: number;
}

export interface ThroughputReport {
  date: string;
  machine: Machine;
  options: BenchOptions;
  loadGenerator: string;
  httpNoop: Measurement;
  scenarios: ScenarioResult[];
}

/**
 * Measures the HTTP ceiling once, then for each scenario the storage ceiling and the service, both
 * starting from the same table contents. Ends by printing the table and writing bench/results/latest.json.
 */
export async function runThroughput(options: BenchOptions): Promise<void> {
  const load = chooseLoad(options.load);
  if (load.note) progress(load.note);
  const measureHttp = load.measure;
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const password = `bench-${randomBytes(6).toString('hex')}`;
  progress(`database ${db.config.database}; ${options.durationSec} s per run, ${options.connections} connections`);
  const service = await startService(db.config, password, options);

  progress('http-noop');
  const noop = await startHttpNoop();
  const httpNoop = await measureHttp(noop.baseUrl, noop.pid, scenarioNamed('get-one'), password, options);
  await noop.stop();

  const scenarios: ScenarioResult[] = [];
  for (const name of options.scenarios) {
    const scenario = scenarioNamed(name);
    progress(`${name}: db-direct`);
    await db.resetUsers(scenario.tableRows);
    const dbDirect = await measureDbDirect(db.config, scenario, options);
    progress(`${name}: service`);
    await db.resetUsers(scenario.tableRows);
    const served = await measureHttp(service.baseUrl, service.pid, scenario, password, options);
    scenarios.push({
      name,
      tableRows: scenario.tableRows,
      service: served,
      dbDirect,
      ratioToHttpNoop: served.reqPerSec / httpNoop.reqPerSec,
      ratioToDbDirect: served.reqPerSec / dbDirect.reqPerSec,
    });
  }
  await service.stop();

  const report: ThroughputReport = {
    date: new Date().toISOString(),
    machine: describeMachine(await db.serverVersion()),
    options,
    loadGenerator: load.label,
    httpNoop,
    scenarios,
  };
  console.log(throughputTable(report));
  progress(`results written to ${await writeResults('latest.json', report)}`);
}

export function throughputTable(report: ThroughputReport): string {
  const row = (label: string, target: string, m: Measurement, ratios: [string, string]): string[] => [
    label,
    target,
    fixed(m.reqPerSec, 0),
    fixed(m.p50Ms, 2),
    fixed(m.p99Ms, 2),
    fixed(m.p50Ms > 0 ? m.p99Ms / m.p50Ms : 0, 1),
    errorText(m),
    m.cpuUsPerOp === null ? '-' : fixed(m.cpuUsPerOp, 0),
    ...ratios,
  ];
  const rows = [row('http-noop', 'ceiling', report.httpNoop, ['1.00', '-'])];
  for (const s of report.scenarios) {
    rows.push(row(s.name, 'service', s.service, [fixed(s.ratioToHttpNoop, 2), fixed(s.ratioToDbDirect, 2)]));
    rows.push(row('', 'db-direct', s.dbDirect, [fixed(s.dbDirect.reqPerSec / report.httpNoop.reqPerSec, 2), '1.00']));
  }
  const { durationSec, connections } = report.options;
  return [
    `${machineLine(report.machine)}; ${durationSec} s per run, ${connections} connections, load from ${report.loadGenerator}`,
    'CPU us/op: CPU time of the process under test (server, or the db-direct client) per successful request.',
    formatTable(['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'p99/p50', 'errors', 'CPU us/op', 'x http-noop', 'x db-direct'], rows),
  ].join('\n');
}

function errorText(m: Measurement): string {
  if (m.errors === 0) return '0';
  const kinds = Object.entries(m.errorKinds).map(([kind, count]) => `${kind}:${count}`);
  return `${m.errors} (${kinds.join(' ')})`;
}
