import { randomBytes } from 'node:crypto';
import { prepareBaseline, type Baseline } from './baseline.js';
import { measureDbDirect, startHttpNoop } from './ceilings.js';
import { createBenchDatabase, type BenchDatabase } from './database.js';
import { onCleanup } from './lifecycle.js';
import { chooseLoad } from './load-generator.js';
import { medianRun, type Measurement } from './measurement.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults, type Machine } from './report.js';
import { scrapeWhile } from './metrics-scraper.js';
import { signalTree } from './proc.js';
import { startService, type RunningService } from './service.js';
import { hookTargets } from './hook-targets.js';
import { scenarioNamed } from './workload.js';

/** One service measured: this checkout or the baseline, with change events off or on. */
export interface SideSpec {
  /** The row's label: `service`, `events on`, `baseline`, `baseline, events on`. */
  label: string;
  baseline: boolean;
  events: boolean;
}

export interface SideResult extends SideSpec {
  /** The median run (errors of all runs), then every run in order. */
  median: Measurement;
  runs: Measurement[];
}

export interface ScenarioResult {
  name: string;
  tableRows: number;
  /** Every service side, in the order of sidesOf(options). */
  sides: SideResult[];
  dbDirect: Measurement;
  dbDirectRuns: Measurement[];
  /** With --direct-best: db-direct at each concurrency asked for, and the best of them. */
  directByConcurrency?: Array<{ concurrency: number; median: Measurement; runs: Measurement[] }>;
  bestDirect?: { concurrency: number; median: Measurement };
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

/** The services one run measures: this checkout, and the baseline's if given, each with events off, on, or both. */
export function sidesOf(options: Pick<BenchOptions, 'events' | 'baseline'>): SideSpec[] {
  const settings = options.events === 'both' ? [false, true] : [options.events === 'on'];
  const builds = options.baseline === undefined ? [false] : [false, true];
  return builds.flatMap((baseline) => settings.map((events) => ({ label: sideLabel(baseline, events && options.events === 'both'), baseline, events })));
}

function sideLabel(baseline: boolean, eventsShown: boolean): string {
  const build = baseline ? 'baseline' : 'service';
  if (!eventsShown) return build;
  return baseline ? 'baseline, events on' : 'events on';
}

/**
 * Measures the HTTP ceiling, then for each scenario the storage ceiling and every side, each run
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
  const specs = sidesOf(options);
  // Started one after the other, events off first: each sets up the schema its settings need.
  const services: RunningService[] = [];
  const sideDbs: BenchDatabase[] = [];
  const hooks = await hookTargets(options);
  if (hooks) onCleanup(() => hooks.stop());
  // Whichever process holds an endpoint's lease delivers every event of its database: sides with
  // webhooks each get a database of their own, so each delivers its own events and no other's.
  const ownDatabases = hooks !== undefined && specs.filter((spec) => spec.events).length > 1;
  let eventsSideStarted = false;
  for (const spec of [...specs].sort((a, b) => Number(a.events) - Number(b.events))) {
    // The first side with events keeps the run's database (db-direct's table is made by a service).
    const sideDb = ownDatabases && spec.events && eventsSideStarted ? await createBenchDatabase() : db;
    if (spec.events) eventsSideStarted = true;
    if (sideDb !== db) onCleanup(() => sideDb.drop());
    if (spec.events && !spec.baseline) await hooks?.prepare(sideDb.config);
    const env = spec.events ? { EVENTS: 'on', ...hooks?.env, ...(spec.baseline ? {} : hooks?.currentEnv) } : { EVENTS: 'off' };
    services[specs.indexOf(spec)] = await startService(sideDb.config, password, { ...options, env }, spec.baseline ? baseline!.entry : undefined);
    sideDbs[specs.indexOf(spec)] = sideDb;
  }

  const dbPid = await db.serverPid();
  const noop = await startHttpNoop();
  const httpNoopRuns: Measurement[] = [];
  for (let run = 1; run <= options.repeat; run++) {
    progress(`http-noop${runLabel(run, options.repeat)}`);
    httpNoopRuns.push(await measureHttp(noop.baseUrl, { server: noop.pid }, scenarioNamed('get-one'), password, options));
  }
  await noop.stop();
  const httpNoop = medianRun(httpNoopRuns);

  const scenarios: ScenarioResult[] = [];
  for (const name of options.scenarios) {
    const scenario = scenarioNamed(name);
    const dbDirectRuns: Measurement[] = [];
    const directRuns: Measurement[][] = options.directConcurrency.map(() => []);
    const runs: Measurement[][] = specs.map(() => []);
    // A table only read is loaded once for all the runs (and kept for the next scenario of its size).
    const next = scenario.writes ? 'writes' : 'reads';
    for (let run = 1; run <= options.repeat; run++) {
      progress(`${name}: db-direct${runLabel(run, options.repeat)}`);
      await db.resetUsers(scenario.tableRows, next);
      dbDirectRuns.push(await measureDbDirect(db.config, scenario, options, dbPid));
      for (const [c, concurrency] of options.directConcurrency.entries()) {
        progress(`${name}: db-direct at ${concurrency}${runLabel(run, options.repeat)}`);
        await db.resetUsers(scenario.tableRows, next);
        directRuns[c]!.push(await measureDbDirect(db.config, scenario, options, dbPid, concurrency));
      }
      // Each side goes first in turn: the database's background work after a write run (purge,
      // page flushing) then weighs on every side alike rather than always on the one after it.
      for (let k = 0; k < specs.length; k++) {
        const i = (k + run - 1) % specs.length;
        const service = services[i]!;
        progress(`${name}: ${specs[i]!.label}${runLabel(run, options.repeat)}`);
        await sideDbs[i]!.resetUsers(scenario.tableRows, next);
        // A side still delivering its last run's events would take CPU from this one: with webhooks, the others wait, stopped.
        const others = hooks ? services.filter((other) => other !== service) : [];
        for (const other of others) signalTree(other.pid, 'SIGSTOP');
        try {
          const measured = measureHttp(service.baseUrl, { server: service.pid, database: dbPid }, scenario, password, options);
          runs[i]!.push(options.metrics ? await scrapeWhile(service.baseUrl, measured) : await measured);
        } finally {
          for (const other of others) signalTree(other.pid, 'SIGCONT');
        }
      }
    }
    const directByConcurrency = options.directConcurrency.map((concurrency, c) => ({ concurrency, median: medianRun(directRuns[c]!), runs: directRuns[c]! }));
    const best = [...directByConcurrency].sort((a, b) => b.median.reqPerSec - a.median.reqPerSec)[0];
    scenarios.push({
      name,
      tableRows: scenario.tableRows,
      sides: specs.map((spec, i) => ({ ...spec, median: medianRun(runs[i]!), runs: runs[i]! })),
      dbDirect: medianRun(dbDirectRuns),
      dbDirectRuns,
      ...(best ? { directByConcurrency, bestDirect: { concurrency: best.concurrency, median: best.median } } : {}),
    });
  }
  for (const service of services) await service.stop();

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
  const bothSettings = report.options.events === 'both';
  const withBest = report.scenarios.some((s) => s.bestDirect !== undefined);
  const row = (label: string, target: string, m: Measurement, ratios: string[]): string[] => [
    label,
    target,
    fixed(m.reqPerSec, 0),
    fixed(m.p50Ms, 2),
    fixed(m.p99Ms, 2),
    fixed(m.p50Ms > 0 ? m.p99Ms / m.p50Ms : 0, 1),
    errorText(m),
    m.cpuUsPerOp === null ? '-' : fixed(m.cpuUsPerOp, 0),
    m.dbCpuUsPerOp === null || m.dbCpuUsPerOp === undefined ? '-' : fixed(m.dbCpuUsPerOp, 0),
    ...ratios,
  ];
  const ratio = (m: Measurement, to: Measurement | undefined): string => (to ? fixed(m.reqPerSec / to.reqPerSec, 2) : '-');
  const ratiosOf = (m: Measurement, dbDirect: Measurement | undefined, baseline: Measurement | undefined, eventsOff: Measurement | undefined, best?: Measurement): string[] => [
    ratio(m, report.httpNoop),
    ratio(m, dbDirect),
    ...(withBest ? [ratio(m, best)] : []),
    ...(withBaseline ? [ratio(m, baseline)] : []),
    ...(bothSettings ? [ratio(m, eventsOff)] : []),
  ];
  const rows = [row('http-noop', 'ceiling', report.httpNoop, ratiosOf(report.httpNoop, undefined, undefined, undefined))];
  for (const s of report.scenarios) {
    const find = (baseline: boolean, events: boolean) => s.sides.find((side) => side.baseline === baseline && side.events === events)?.median;
    s.sides.forEach((side, i) => {
      const sameSettingBaseline = find(true, side.events);
      const sameBuildEventsOff = side.events ? find(side.baseline, false) : undefined;
      rows.push(row(i === 0 ? s.name : '', side.label, side.median, ratiosOf(side.median, s.dbDirect, sameSettingBaseline, sameBuildEventsOff, s.bestDirect?.median)));
    });
    rows.push(row('', 'db-direct', s.dbDirect, ratiosOf(s.dbDirect, s.dbDirect, undefined, undefined, s.bestDirect?.median)));
    for (const each of s.directByConcurrency ?? []) {
      const label = `direct c=${each.concurrency}${each.concurrency === s.bestDirect?.concurrency ? ' *' : ''}`;
      rows.push(row('', label, each.median, ratiosOf(each.median, s.dbDirect, undefined, undefined, s.bestDirect?.median)));
    }
  }
  const ratioTitles = ['x http-noop', 'x db-direct', ...(withBest ? ['x best direct'] : []), ...(withBaseline ? ['x baseline'] : []), ...(bothSettings ? ['x events off'] : [])];
  const { durationSec, connections, repeat, workers } = report.options;
  return [
    `${machineLine(report.machine)}; ${durationSec} s per run, ${connections} connections, WORKERS=${workers}, load from ${report.loadGenerator}`,
    repeat > 1
      ? `Each row: the median of ${repeat} alternating runs by req/s (its latencies and CPU), errors over all runs.`
      : 'Each row: one run.',
    'CPU us/op: CPU time of the process under test (server, or the db-direct client) per successful request; DB us/op: the database server\'s, when it runs here.',
    ...(report.baseline
      ? [`baseline: the service as of ${report.baseline.ref} (${report.baseline.commit.slice(0, 12)}), measured in the same rounds.`]
      : []),
    ...(bothSettings ? ['events on: the same service with EVENTS=on (x events off: its req/s over the same build with events off).'] : []),
    ...(withBest ? ['direct c=N: db-direct with N loops, each with a connection of its own; * the best of them (x best direct: req/s over it).'] : []),
    formatTable(['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'p99/p50', 'errors', 'CPU us/op', 'DB us/op', ...ratioTitles], rows),
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
