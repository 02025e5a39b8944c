import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { haproxyBinary, startHaproxy } from '../test/helpers/haproxy.js';
import { portOf } from '../test/helpers/http.js';
import { statusOf } from '../test/helpers/status-of.js';
import { createBenchDatabase, type BenchDatabase } from './database.js';
import { onCleanup } from './lifecycle.js';
import { chooseLoad } from './load-generator.js';
import { medianRun, type Measurement } from './measurement.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults } from './report.js';
import { startService, type RunningService } from './service.js';
import { scenarioNamed } from './workload.js';

/** A limit no client of the cost runs reaches: every request is counted, none refused. */
const UNREACHED = '999999999/1h';
/** The accuracy runs' limit, as issue and docs state it. */
const LIMIT = 300;
const WINDOW_S = 10;
const SIDES = [
  { label: 'limits per instance', env: { LIMITS_SHARED: 'off' } },
  { label: 'limits shared', env: { LIMITS_SHARED: 'on' } },
] as const;

/**
 * `--mode limits`: what LIMITS_SHARED costs and what it buys.
 * - Cost: the scenarios (get-one and mixed by default) with RATE_LIMIT on, counted per instance and
 *   shared, alternating in the same rounds; with the sync's statements per interval read from /metrics.
 * - Accuracy: three instances of two workers behind HAProxy round-robin, one client as fast as it
 *   can at RATE_LIMIT=300/10s for --accuracy-seconds, accepted requests per window, shared and not.
 */
export async function runLimits(options: BenchOptions): Promise<void> {
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const cost = await measureCost(db, password, options);
  const accuracy = haproxyBinary() === undefined ? undefined : [await measureAccuracy(db, password, options, false), await measureAccuracy(db, password, options, true)];
  const machine = describeMachine(await db.serverVersion());
  const lines = [
    `${machineLine(machine)}; ${options.durationSec} s per run, ${options.connections} connections, WORKERS=${options.workers}, RATE_LIMIT=${UNREACHED}`,
    `Each row: the median of ${options.repeat} alternating runs by req/s.`,
    formatTable(
      ['scenario', 'side', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'x per instance', 'syncs per interval'],
      cost.rows.map((row) => [row.scenario, row.label, fixed(row.median.reqPerSec, 0), fixed(row.median.p50Ms, 2), fixed(row.median.p99Ms, 2), String(row.median.errors), fixed(row.ratio, 2), row.syncsPerInterval === undefined ? '-' : fixed(row.syncsPerInterval, 2)]),
    ),
  ];
  if (accuracy) {
    lines.push(`\nAccuracy: 3 instances x WORKERS=2 behind HAProxy round-robin, one client (${options.connections} connections) as fast as it can, RATE_LIMIT=${LIMIT}/${WINDOW_S}s for ${options.accuracySec} s`);
    lines.push(formatTable(['LIMITS_SHARED', 'accepted per whole window', 'x limit (max)', 'refused', 'wrong passwords answered 401 (AUTH_MAX_FAILURES=10)'], accuracy.map((a) => [a.shared ? 'on' : 'off', a.windows.join(', '), fixed(Math.max(...a.windows) / LIMIT, 2), String(a.refused), String(a.guesses)])));
  } else lines.push('\nAccuracy not measured: haproxy is not installed (apt-get install haproxy).');
  console.log(lines.join('\n'));
  progress(`results written to ${await writeResults('limits.json', { date: new Date().toISOString(), machine, options, cost: cost.rows, accuracy })}`);
}

interface CostRow {
  scenario: string;
  label: string;
  median: Measurement;
  ratio: number;
  syncsPerInterval?: number;
}

async function measureCost(db: BenchDatabase, password: string, options: BenchOptions): Promise<{ rows: CostRow[] }> {
  const measure = chooseLoad(options.load).measure;
  // Started one after the other, per instance first: the second adds the shared limits' table.
  const services: RunningService[] = [];
  for (const side of SIDES) {
    services.push(await startService(db.config, password, { ...options, metrics: true, env: { RATE_LIMIT: UNREACHED, ...side.env } }));
  }
  onCleanup(async () => {
    for (const service of services) await service.stop();
  });
  const dbPid = await db.serverPid();
  const rows: CostRow[] = [];
  for (const name of options.scenarios) {
    const scenario = scenarioNamed(name);
    const runs: Measurement[][] = SIDES.map(() => []);
    const syncs: number[] = [];
    for (let run = 1; run <= options.repeat; run++) {
      for (let k = 0; k < SIDES.length; k++) {
        const i = (k + run - 1) % SIDES.length;
        progress(`${name}: ${SIDES[i]!.label} (run ${run} of ${options.repeat})`);
        await db.resetUsers(scenario.tableRows, scenario.writes ? 'writes' : 'reads');
        const before = await syncStatements(services[i]!);
        const startedAt = performance.now();
        runs[i]!.push(await measure(services[i]!.baseUrl, { server: services[i]!.pid, database: dbPid }, scenario, password, options));
        const intervals = (performance.now() - startedAt) / 500;
        if (SIDES[i]!.env.LIMITS_SHARED === 'on') syncs.push(((await syncStatements(services[i]!)) - before) / intervals);
      }
    }
    const perInstance = medianRun(runs[0]!);
    rows.push({ scenario: name, label: SIDES[0].label, median: perInstance, ratio: 1 });
    const shared = medianRun(runs[1]!);
    rows.push({ scenario: name, label: SIDES[1].label, median: shared, ratio: shared.reqPerSec / perInstance.reqPerSec, syncsPerInterval: Math.max(...syncs) });
  }
  for (const service of services.splice(0)) await service.stop();
  return { rows };
}

/** limits_sync_statements_total of the service (its primary's, merged), from /metrics. */
async function syncStatements(service: RunningService): Promise<number> {
  const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((each) => each.startsWith('limits_sync_statements_total'));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

interface Accuracy {
  shared: boolean;
  windows: number[];
  refused: number;
  guesses: number;
}

async function measureAccuracy(db: BenchDatabase, password: string, options: BenchOptions, shared: boolean): Promise<Accuracy> {
  const env = { WORKERS: '2', LIMITS_SHARED: shared ? 'on' : 'off', RATE_LIMIT: `${LIMIT}/${WINDOW_S}s`, AUTH_MAX_FAILURES: '10', AUTH_WINDOW_S: '60' };
  const services: RunningService[] = [];
  for (let i = 0; i < 3; i++) services.push(await startService(db.config, password, { ...options, workers: 2, env }));
  const proxy = await startHaproxy(haproxyBinary()!, services.map((service, i) => ({ name: `i${i}`, port: portOf(service.baseUrl) })));
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
    const windowMs = WINDOW_S * 1000;
    // The client's first request opens each instance's window when counted per instance: begun on a
    // clock boundary, its windows are the clock's, as the shared ones always are.
    await sleep(windowMs - (Date.now() % windowMs) + 20);
    progress(`accuracy, LIMITS_SHARED=${env.LIMITS_SHARED}: ${options.accuracySec} s as fast as one client can`);
    const first = Math.floor(Date.now() / windowMs);
    const until = Date.now() + options.accuracySec * 1000;
    const accepted = new Map<number, number>();
    let refused = 0;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (Date.now() < until) {
          const status = await statusOf(agent, `${proxy.baseUrl}/api/users/1`);
          const window = Math.floor(Date.now() / windowMs);
          if (status === 200) accepted.set(window, (accepted.get(window) ?? 0) + 1);
          else refused++;
        }
      }),
    );
    // Once every window of the flood has ended, the wrong passwords do not meet its refusals.
    await sleep(windowMs + 1000);
    progress(`accuracy, LIMITS_SHARED=${env.LIMITS_SHARED}: wrong passwords`);
    let guesses = 0;
    for (let i = 0; i < 60; i++) if ((await statusOf(agent, `${proxy.baseUrl}/api/users?pwd=wrong-${i}`)) === 401) guesses++;
    agent.destroy();
    const last = Math.floor(until / windowMs);
    const windows = [...accepted].filter(([window]) => window >= first && window < last).sort(([a], [b]) => a - b).map(([, count]) => count);
    return { shared, windows, refused, guesses };
  } finally {
    await proxy.stop();
    for (const service of services) await service.stop();
  }
}

