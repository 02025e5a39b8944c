import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareBaseline } from './baseline.js';
import { selfSignedCertificate } from './certificates.js';
import { startCollector } from './collector.js';
import { createBenchDatabase } from './database.js';
import { httpOperation } from './http-load.js';
import { onCleanup } from './lifecycle.js';
import type { BenchOptions } from './options.js';
import type { DbConfig } from '../src/config/environment.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults } from './report.js';
import { startService, type RunningService } from './service.js';
import { scenarioNamed, type Scenario } from './workload.js';

/**
 * Requests before a scenario's first count (a quarter of it before each later one), run without
 * callgrind's instrumentation (several times faster), so that V8 has compiled the request path it
 * then counts.
 */
const WARMUP_REQUESTS = 20_000;
/** Node under callgrind starts some fifty times slower than without. */
const READY_UNDER_VALGRIND_MS = 300_000;
/** Counts per process and scenario, after the settling one; the lowest is kept. */
const COUNTS_PER_PROCESS = 2;

/**
 * A young generation of a fixed size: left to grow, it made each count lower than the one before.
 * V8 keeps its helper threads (callgrind counts every thread of the process): with them removed
 * (--single-threaded) as well, some processes started in a state where every scavenge promoted
 * half of what it copied, and counted 60% more per request (docs/performance.md).
 */
const NODE_FLAGS = ['--min-semi-space-size=16', '--max-semi-space-size=16'];

/** What is counted: a build (this one, or the baseline's entry), over plain HTTP or HTTPS. */
interface Build {
  label: string;
  entry: string | undefined;
  env: Record<string, string>;
  /** The side this one's ratio is taken against: the baseline, or this build with nothing configured. */
  against: 'baseline' | 'service';
  /** Only these scenarios (HTTPS is counted on get-one, as the tracing mode measures it). */
  only?: string[];
}

interface Side {
  label: string;
  service: RunningService;
  /** Where callgrind writes its dumps. */
  countsDir: string;
}

interface Row {
  scenario: string;
  label: string;
  /** Instructions per request, each process's lowest count. */
  perProcess: number[];
  median: number;
  /** The median of the side it is compared with over this side's: below 1, more instructions. */
  ratio: number | undefined;
  against: Build['against'];
}

/**
 * `--mode instructions`: the machine instructions the service process executes per request,
 * counted by valgrind's callgrind, for this build and the --baseline commit. Requests per second on
 * a shared machine of two cores move by tens of percent between runs; an instruction count does not
 * depend on what else the machine is doing. One request at a time on one keep-alive connection,
 * after a warm-up that lets V8 compile the request path, every thread of the process counted (V8's
 * compiling and collecting included); each build in --repeat processes of its own, alternating,
 * since V8 compiles differently from one process to the next.
 * What the database server executes is not counted: the same statements reach it from both.
 * With --tls this build is also counted over HTTPS (TLS 1.3, keep-alive) against itself over HTTP:
 * the service's own cost of TLS, which a load generator sharing the machine's cores would blur. With
 * --export R, with spans exported to a local OTLP endpoint at sampling ratio R (the exporter's
 * thread counted too).
 */
export async function runInstructions(options: BenchOptions): Promise<void> {
  requireValgrind();
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const baseline = options.baseline === undefined ? undefined : prepareBaseline(options.baseline);
  const certs = options.tls ? selfSignedCertificate() : undefined;
  if (certs) onCleanup(async () => rmSync(certs.dir, { recursive: true, force: true }));
  const collector = options.exportRatio === undefined ? undefined : await startCollector();
  if (collector) onCleanup(() => new Promise<void>((resolve) => collector.server.close(() => resolve())));
  const exporting = collector && { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_SAMPLER_ARG: String(options.exportRatio) };
  const builds: Build[] = [
    { label: 'service', entry: undefined, env: {}, against: 'baseline' },
    ...(certs ? [{ label: 'service, HTTPS', entry: undefined, env: { TLS_CERT_FILE: certs.cert, TLS_KEY_FILE: certs.key }, against: 'service' as const, only: ['get-one'] }] : []),
    ...(exporting ? [{ label: `service, export ${options.exportRatio}`, entry: undefined, env: exporting, against: 'service' as const }] : []),
    ...(baseline ? [{ label: `baseline ${baseline.ref}`, entry: baseline.entry, env: {}, against: 'baseline' as const }] : []),
  ];
  let running: Side | undefined;
  onCleanup(async () => running && (await stopSide(running)));
  // Each build's count per scenario, one per process: V8 compiles the same code differently from one
  // process to the next (the same build measured 252 000 and 305 000 instructions a get-one in two).
  const counts = builds.map(() => options.scenarios.map((): number[] => []));
  let n = 0;
  for (let round = 1; round <= options.repeat; round++) {
    for (const [b, build] of builds.entries()) {
      progress(`${build.label}: process ${round} of ${options.repeat}, started under callgrind`);
      running = await startSide(db.config, password, options, build);
      for (const [s, name] of options.scenarios.entries()) {
        if (build.only !== undefined && !build.only.includes(name)) continue;
        const scenario = scenarioNamed(name);
        await db.resetUsers(scenario.tableRows, scenario.writes ? 'writes' : 'reads');
        const perCount: number[] = [];
        // The first count after a warm-up is thrown away: it measured up to double the next ones.
        for (let count = 0; count <= COUNTS_PER_PROCESS; count++) {
          progress(`${name}: ${build.label} (process ${round}, ${count === 0 ? 'settling count' : `count ${count} of ${COUNTS_PER_PROCESS}`})`);
          n = await send(running.service.baseUrl, scenario, password, n, count === 0 ? WARMUP_REQUESTS : WARMUP_REQUESTS / 4);
          const total = await counted(running, `${name}-${round}-${count}`, () => send(running!.service.baseUrl, scenario, password, n, options.requests));
          n += options.requests;
          if (count > 0) perCount.push(total / options.requests);
        }
        // V8's collections of the old generation and its recompiling fall into some counts and add to
        // them (20-30% more, measured): the process's lowest count is its request path's.
        counts[b]![s]!.push(Math.min(...perCount));
      }
      await stopSide(running);
      running = undefined;
    }
  }
  const rows: Row[] = options.scenarios.flatMap((name, s) => {
    const measured = builds.map((build, b) => ({ build, b })).filter(({ build }) => build.only === undefined || build.only.includes(name));
    const medians = builds.map((_, b) => median(counts[b]![s]!));
    const reference = (build: Build): number | undefined => (build.against === 'service' ? medians[0] : baseline ? medians.at(-1) : undefined);
    return measured.map(({ build, b }) => {
      const against = reference(build);
      return { scenario: name, label: build.label, perProcess: counts[b]![s]!, median: medians[b]!, ratio: against === undefined ? undefined : against / medians[b]!, against: build.against };
    });
  });
  const machine = describeMachine(await db.serverVersion());
  console.log(
    [
      `${machineLine(machine)}; ${options.requests} requests per count, one at a time, after ${WARMUP_REQUESTS} unmeasured and a settling count; node ${NODE_FLAGS.join(' ')} under valgrind --tool=callgrind`,
      `Each row: the median over ${options.repeat} processes of each one's lowest of ${COUNTS_PER_PROCESS} counts; spread: (largest - smallest) / median; x baseline: the baseline's instructions per request over this side's; x service: this build's with nothing configured over this side's.`,
      formatTable(
        ['scenario', 'side', 'instructions/request', 'spread %', 'x baseline', 'x service'],
        rows.map((row) => [
          row.scenario,
          row.label,
          fixed(row.median, 0),
          fixed((100 * (Math.max(...row.perProcess) - Math.min(...row.perProcess))) / row.median, 2),
          row.against === 'baseline' && row.ratio !== undefined ? fixed(row.ratio, 3) : '-',
          row.against === 'service' && row.ratio !== undefined ? fixed(row.ratio, 3) : '-',
        ]),
      ),
    ].join('\n'),
  );
  progress(`results written to ${await writeResults('instructions.json', { date: new Date().toISOString(), machine, options, rows })}`);
}

function requireValgrind(): void {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('--mode instructions needs valgrind (apt-get install valgrind)');
  }
}

/** Sends `count` requests one after another, numbered from `from`; any unexpected status ends the run. Returns the next number. */
async function send(baseUrl: string, scenario: Scenario, password: string, from: number, count: number): Promise<number> {
  // Over HTTPS the benchmark's own certificate is not checked; one TLS session carries every request.
  const secure = baseUrl.startsWith('https:');
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false }) : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const request = secure ? httpsRequest : httpRequest;
  try {
    for (let n = from; n < from + count; n++) {
      const operation = httpOperation(scenario, n, password);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${baseUrl}${operation.path}`, { method: operation.method, agent, headers: operation.body ? { 'content-type': 'application/json' } : {} }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(operation.body);
      });
      if (status !== operation.expectedStatus) throw new Error(`${operation.method} ${operation.path}: ${status}, expected ${operation.expectedStatus}`);
    }
    return from + count;
  } finally {
    agent.destroy();
  }
}

/**
 * valgrind names the pipes it is reached through after the HOST variable of the process it runs,
 * which is the service's listening address (see service.ts): callgrind_control must see the same.
 */
function callgrindControl(args: string[], service: RunningService): void {
  execFileSync('callgrind_control', [...args, String(service.pid)], { stdio: 'ignore', timeout: 60_000, env: { ...process.env, HOST: new URL(service.baseUrl).hostname } });
}

async function startSide(db: DbConfig, password: string, options: BenchOptions, { label, entry, env }: Build): Promise<Side> {
  const countsDir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
  const launcher = ['valgrind', '-q', '--tool=callgrind', '--instr-atstart=no', '--dump-instr=no', '--compress-strings=no', `--callgrind-out-file=${join(countsDir, 'counts')}`];
  try {
    const service = await startService(db, password, { ...options, profile: false, env }, entry, { command: launcher, nodeFlags: NODE_FLAGS, readyTimeoutMs: READY_UNDER_VALGRIND_MS });
    return { label, service, countsDir };
  } catch (error) {
    rmSync(countsDir, { recursive: true, force: true });
    throw error;
  }
}

async function stopSide(side: Side): Promise<void> {
  await side.service.stop();
  rmSync(side.countsDir, { recursive: true, force: true });
}

/** The instructions the service executes while `work` runs: instrumented from zero, then dumped. */
async function counted(side: Side, reason: string, work: () => Promise<unknown>): Promise<number> {
  callgrindControl(['--instr=on'], side.service);
  callgrindControl(['--zero'], side.service);
  await work();
  const total = await lastDumpTotal(side, reason);
  callgrindControl(['--instr=off'], side.service);
  return total;
}

/** Dumps the counts gathered since the last zeroing and returns their total of instructions. */
async function lastDumpTotal(side: Side, reason: string): Promise<number> {
  const before = dumpNumbers(side.countsDir).at(-1) ?? 0;
  callgrindControl([`--dump=${reason}`], side.service);
  // callgrind writes the dump from inside the service process: wait for a new one, complete.
  for (let waited = 0; waited < 60_000; waited += 200) {
    const newest = dumpNumbers(side.countsDir).at(-1) ?? 0;
    const total = newest > before ? /^totals: (\d+)$/m.exec(readFileSync(join(side.countsDir, `counts.${newest}`), 'utf8'))?.[1] : undefined;
    if (total !== undefined) return Number(total);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`callgrind wrote no dump for ${side.label} (${reason}) in ${side.countsDir}: ${readdirSync(side.countsDir).join(", ")}`);
}

/** The numbers of the dumps written so far (counts.1, counts.2, ...), in order. */
function dumpNumbers(dir: string): number[] {
  return readdirSync(dir)
    .map((file) => /^counts\.(\d+)$/.exec(file)?.[1])
    .filter((number) => number !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
