import { randomBytes } from 'node:crypto';
import { prepareBaseline, type Baseline } from './baseline.js';
import { measureDbDirect, startHttpNoop } from './ceilings.js';
import { createBenchDatabase } from './database.js';
import { onCleanup } from './lifecycle.js';
import { chooseLoad } from './load-generator.js';
import { medianRun, type Measurement } from './measurement.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults, type Machine } from './report.js';
import { scrapeWhile } from './metrics-scraper.js';
import { startService } from './service.js';
import { scenarioNamed } from './workload.js';

export interface ScenarioResult {
  name: string;
  tableRows: number;
  /** The median run of each side (errors of all runs), then every run in order. */
  service: Measurement;
  dbDirect: Measurement;
  serviceRuns: Measurement[];
  dbDirectRuns: Measurement[];
  /** Service req/s divided by the ceiling's. */
  ratioToHttpNoop: number;
  ratioToDbDirect: number;
  /** With --baseline: the older service's median run, its runs, and this service's req/s over its. */
  baseline?: Measurement;
  baselineRuns?: Measurement[];
  ratioToBaseline?: number;
}

export interface ThroughputReport {
  date: string;
  machine: Machine;
  options: BenchOptions;
  loadGenerator: string;
  httpNoop: Measurement;
  httpNoopRuns: Measurement[];
  scenarios: ScenarioResult[];
  baseline?: Pick<Baseline, 'ref' | 'commit'>;
}

/**
 * Measures the HTTP ceiling, then for each scenario the storage ceiling and the service, each run
 * starting from the same table contents, alternating `repeat` times: on a shared machine the
 * cores' speed drifts within seconds, and the median of alternating runs keeps a slow moment from
 * deciding a ratio. Ends by printing the table and writing bench/results/latest.json.
 */
export async function runThroughput(options: BenchOptions): Promise<void> {
  const load = chooseLoad(options.load);
  if (load.note) progress(load.note);
  const measureHttp = load.measure;
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const password = `bench-${randomBytes(6).toString('hex')}`;
  progress(`database ${db.config.database}; ${options.durationSec} s per run, ${options.connections} connections`);
  const baseline = options.baseline === undefined ? undefined : prepareBaseline(options.baseline);
  if (baseline) progress(`baseline ${baseline.ref} (${baseline.commit.slice(0, 12)}) built`);
  const service = await startService(db.config, password, options);
  const baselineService = baseline ? await startService(db.config, password, options, baseline.entry) : undefined;

  const noop = await startHttpNoop();
  const httpNoopRuns: Measurement[] = [];
  for (let run = 1; run <= options.repeat; run++) {
    progress(`http-noop${runLabel(run, options.repeat)}`);
    httpNoopRuns.push(await measureHttp(noop.baseUrl, noop.pid, scenarioNamed('get-one'), password, options));
  }
  await noop.stop();
  const httpNoop = medianRun(httpNoopRuns);

  const scenarios: ScenarioResult[] = [];
  for (const name of options.scenarios) {
    const scenario = scenarioNamed(name);
    const dbDirectRuns: Measurement[] = [];
    const serviceRuns: Measurement[] = [];
    const baselineRuns: Measurement[] = [];
    // A table only read is loaded once for all the runs (and kept for the next scenario of its size).
    const next = scenario.writes ? 'writes' : 'reads';
    for (let run = 1; run <= options.repeat; run++) {
      progress(`${name}: db-direct${runLabel(run, options.repeat)}`);
      await db.resetUsers(scenario.tableRows, next);
      dbDirectRuns.push(await measureDbDirect(db.config, scenario, options));
      const measureBaseline = async (): Promise<void> => {
        if (!baselineService) return;
        progress(`${name}: baseline${runLabel(run, options.repeat)}`);
        await db.resetUsers(scenario.tableRows, next);
        baselineRuns.push(await measureHttp(baselineService.baseUrl, baselineService.pid, scenario, password, options));
      };
      const measureService = async (): Promise<void> => {
        progress(`${name}: service${runLabel(run, options.repeat)}`);
        await db.resetUsers(scenario.tableRows, next);
        const measured = measureHttp(service.baseUrl, service.pid, scenario, password, options);
        serviceRuns.push(options.metrics ? await scrapeWhile(service.baseUrl, measured) : await measured);
      };
      // Each side goes first every other round: the database's background work after a write run
      // (purge, page flushing) then weighs on both sides alike rather than always on the second.
      if (run % 2 === 1) {
        await measureBaseline();
        await measureService();
      } else {
        await measureService();
        await measureBaseline();
      }
    }
    const served = medianRun(serviceRuns);
    const dbDirect = medianRun(dbDirectRuns);
    const before = baselineService ? medianRun(baselineRuns) : undefined;
    scenarios.push({
      name,
      tableRows: scenario.tableRows,
      service: served,
      dbDirect,
      serviceRuns,
      dbDirectRuns,
      ratioToHttpNoop: served.reqPerSec / httpNoop.reqPerSec,
      ratioToDbDirect: served.reqPerSec / dbDirect.reqPerSec,
      ...(before ? { baseline: before, baselineRuns, ratioToBaseline: served.reqPerSec / before.reqPerSec } : {}),
    });
  }
  await service.stop();
  await baselineService?.stop();

  const report: ThroughputReport = {
    date: new Date().toISOString(),
    machine: describeMachine(await db.serverVersion()),
    options,
    loadGenerator: load.label,
    httpNoop,
    httpNoopRuns,
    scenarios,
    ...(baseline ? { baseline: { ref: baseline.ref, commit: baseline.commit } } : {}),
  };
  console.log(throughputTable(report));
  progress(`results written to ${await writeResults('latest.json', report)}`);
}

export function throughputTable(report: ThroughputReport): string {
  const withBaseline = report.baseline !== undefined;
  const row = (label: string, target: string, m: Measurement, ratios: string[]): string[] => [
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
  const ratiosOf = (m: Measurement, dbDirect: Measurement | undefined, baseline: Measurement | undefined): string[] => [
    fixed(m.reqPerSec / report.httpNoop.reqPerSec, 2),
    dbDirect ? fixed(m.reqPerSec / dbDirect.reqPerSec, 2) : '-',
    ...(withBaseline ? [baseline ? fixed(m.reqPerSec / baseline.reqPerSec, 2) : '-'] : []),
  ];
  const rows = [row('http-noop', 'ceiling', report.httpNoop, ratiosOf(report.httpNoop, undefined, undefined))];
  for (const s of report.scenarios) {
    rows.push(row(s.name, 'service', s.service, ratiosOf(s.service, s.dbDirect, s.baseline)));
    if (s.baseline) rows.push(row('', 'baseline', s.baseline, ratiosOf(s.baseline, s.dbDirect, s.baseline)));
    rows.push(row('', 'db-direct', s.dbDirect, ratiosOf(s.dbDirect, s.dbDirect, s.baseline)));
  }
  const ratioTitles = ['x http-noop', 'x db-direct', ...(withBaseline ? ['x baseline'] : [])];
  const { durationSec, connections, repeat, workers } = report.options;
  return [
    `${machineLine(report.machine)}; ${durationSec} s per run, ${connections} connections, WORKERS=${workers}, load from ${report.loadGenerator}`,
    repeat > 1
      ? `Each row: the median of ${repeat} alternating runs by req/s (its latencies and CPU), errors over all runs.`
      : 'Each row: one run.',
    'CPU us/op: CPU time of the process under test (server, or the db-direct client) per successful request.',
    ...(report.baseline
      ? [`baseline: the service as of ${report.baseline.ref} (${report.baseline.commit.slice(0, 12)}), measured in the same rounds.`]
      : []),
    formatTable(['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'p99/p50', 'errors', 'CPU us/op', ...ratioTitles], rows),
  ].join('\n');
}

function runLabel(run: number, runs: number): string {
  return runs > 1 ? ` (${run}/${runs})` : '';
}

function errorText(m: Measurement): string {
  if (m.errors === 0) return '0';
  const kinds = Object.entries(m.errorKinds).map(([kind, count]) => `${kind}:${count}`);
  return `${m.errors} (${kinds.join(' ')})`;
}
