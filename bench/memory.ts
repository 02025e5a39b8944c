import { randomBytes } from 'node:crypto';
import type { DbConfig } from '../src/config/environment.js';
import { prepareBaseline, type Baseline } from './baseline.js';
import { createBenchDatabase } from './database.js';
import { jsonOutput, onCleanup, startTsChild } from './lifecycle.js';
import { curlVersion, fetchListWithCurl } from './list-fetch-curl.js';
import { fetchList, type FetchedList, type FetchList } from './list-fetch.js';
import type { BenchOptions, ListClient } from './options.js';
import { readCpuSeconds, readProcessMemory, resetPeakRss, type ProcessMemory } from './proc.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults, type Machine } from './report.js';
import { startService, type RunningService } from './service.js';
import type { ListStatement } from './stream-rows.js';

interface DirectStream extends ProcessMemory {
  rows: number;
  seconds: number;
  cpuSeconds: number;
  /** RSS once connected, before the query. */
  idleRssMb: number;
}

/** A service's listing: its median time, and its highest peak over the RSS it had before its first listing. */
export type ServiceListing = FetchedList & {
  cpuSeconds: number;
  /** RSS once started, before any listing. */
  idleRssMb: number;
  rssBeforeMb: number;
  peakRssMb: number;
  peakCoversRequestOnly: boolean;
};

export interface MemoryReport {
  date: string;
  machine: Machine;
  rows: number;
  loadSeconds: number;
  /** What fetched the list from the service, e.g. "curl 7.88.1". */
  listClient: string;
  service: ServiceListing;
  /** With --baseline: the service as of that commit, measured alternating with this one. */
  baseline?: Pick<Baseline, 'ref' | 'commit'> & { listing: ServiceListing };
  /** mysql2 streaming the plain table read: the reference of the time target. */
  mysqlStream: DirectStream;
  /** mysql2 streaming the service's own list statement (rows nearly serialised by the database). */
  mysqlJsonStream: DirectStream;
  timeRatio: number;
  timeRatioToJsonStream: number;
}

/**
 * Loads `rows` users, then lists them `repeat` times through mysql2 alone and as many through
 * the service (and the baseline's, if any), alternating, reporting the median time and the highest
 * peak RSS of each process. Writes bench/results/memory-latest.json.
 */
export async function runMemory(options: BenchOptions): Promise<void> {
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const client = chooseListClient(options.listClient);
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const baseline = options.baseline === undefined ? undefined : prepareBaseline(options.baseline);
  if (baseline) progress(`baseline ${baseline.ref} (${baseline.commit.slice(0, 12)}) built`);
  const service = await startService(db.config, password, options);
  // The baseline runs as this side does: compiled, or through tsx as `npm start` runs it.
  const baselineEntry = baseline && (options.runner === 'tsx' ? baseline.source : baseline.entry);
  const baselineService = baselineEntry ? await startService(db.config, password, options, baselineEntry) : undefined;

  progress(`loading ${options.rows} users into ${db.config.database}`);
  const loadStarted = performance.now();
  await db.resetUsers(options.rows);
  const loadSeconds = (performance.now() - loadStarted) / 1000;

  // Alternating runs, each side's median reported: one listing alone is at the mercy of a noisy machine.
  const directRuns: DirectStream[] = [];
  const jsonRuns: DirectStream[] = [];
  const url = (listed: RunningService) => `${listed.baseUrl}/api/users?pwd=${encodeURIComponent(password)}`;
  const serviceSide = new ListingRuns(service.pid);
  const baselineSide = baselineService ? new ListingRuns(baselineService.pid) : undefined;
  for (let run = 1; run <= options.repeat; run++) {
    progress(`mysql2 stream without HTTP (${run}/${options.repeat})`);
    directRuns.push(await streamDirect(db.config, options.rows, 'listUsers'));
    progress(`mysql2 stream of the service's own list statement (${run}/${options.repeat})`);
    jsonRuns.push(await streamDirect(db.config, options.rows, 'listUsersAsJson'));
    const sides = [{ name: 'the service', listed: service, runs: serviceSide }];
    if (baselineService && baselineSide) sides.push({ name: "the baseline's service", listed: baselineService, runs: baselineSide });
    // Each side goes first in turn: what the database does after one listing falls on neither alone.
    if (run % 2 === 0) sides.reverse();
    for (const { name, listed, runs } of sides) {
      progress(`GET /api/users through ${name} (${run}/${options.repeat})`);
      await runs.measure(() => client.fetch(url(listed), options.rows));
    }
  }
  await service.stop();
  await baselineService?.stop();
  const mysqlStream = median(directRuns);
  const mysqlJsonStream = median(jsonRuns);
  const fetched = serviceSide.result();

  const report: MemoryReport = {
    date: new Date().toISOString(),
    machine: describeMachine(await db.serverVersion()),
    rows: options.rows,
    loadSeconds,
    listClient: client.label,
    service: fetched,
    mysqlStream,
    mysqlJsonStream,
    timeRatio: fetched.seconds / mysqlStream.seconds,
    timeRatioToJsonStream: fetched.seconds / mysqlJsonStream.seconds,
    ...(baseline && baselineSide ? { baseline: { ref: baseline.ref, commit: baseline.commit, listing: baselineSide.result() } } : {}),
  };
  console.log(memoryTable(report));
  progress(`results written to ${await writeResults('memory-latest.json', report)}`);
}

/** One service's listings: its RSS before the first, and each one's time, CPU and peak RSS. */
class ListingRuns {
  private readonly idleRssMb: number;
  private readonly runs: Array<Omit<ServiceListing, 'idleRssMb'>> = [];

  constructor(private readonly pid: number) {
    this.idleRssMb = readProcessMemory(pid).rssMb;
  }

  async measure(fetch: () => Promise<FetchedList>): Promise<void> {
    const before = readProcessMemory(this.pid);
    // Without the reset, VmHWM would also cover whatever start-up needed.
    const peakCoversRequestOnly = resetPeakRss(this.pid);
    const cpuBefore = readCpuSeconds(this.pid);
    const fetched = await fetch();
    const cpuSeconds = readCpuSeconds(this.pid) - cpuBefore;
    const after = readProcessMemory(this.pid);
    this.runs.push({ ...fetched, cpuSeconds, rssBeforeMb: before.rssMb, peakRssMb: after.peakRssMb, peakCoversRequestOnly });
  }

  /** The median run, with the highest peak of all. */
  result(): ServiceListing {
    return { ...median(this.runs), idleRssMb: this.idleRssMb, peakRssMb: Math.max(...this.runs.map((run) => run.peakRssMb)) };
  }
}

/**
 * curl reads the hundred-megabyte body for a fraction of the CPU Node's HTTP client spends on it,
 * leaving more of a small machine to the service and the database being measured.
 */
function chooseListClient(choice: ListClient): { label: string; fetch: FetchList } {
  const curl = choice === 'node' ? undefined : curlVersion();
  if (curl) return { label: curl, fetch: fetchListWithCurl };
  if (choice === 'curl') throw new Error('--list-client curl: curl is not installed (Debian: apt-get install curl)');
  if (choice === 'auto') progress("curl is not installed: Node's HTTP client fetches the list (apt-get install curl for a lighter one)");
  return { label: "Node's http client", fetch: fetchList };
}

function median<T extends { seconds: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)]!;
}

async function streamDirect(db: DbConfig, rows: number, statement: ListStatement): Promise<DirectStream> {
  const child = startTsChild('bench/stream-rows.ts', ['ignore', 'pipe', 'pipe'], {
    ...process.env,
    BENCH_JOB: JSON.stringify({ db, statement }),
  });
  const result = await jsonOutput<DirectStream>(child, 120_000, 'mysql2 stream');
  if (result.rows !== rows) throw new Error(`mysql2 streamed ${result.rows} rows, expected ${rows}`);
  return result;
}

export function memoryTable(report: MemoryReport): string {
  const { service, mysqlStream, mysqlJsonStream, baseline } = report;
  const mb = (value: number) => fixed(value, 1);
  const listingRow = (name: string, listing: ServiceListing): string[] => [
    name, fixed(listing.seconds, 2), fixed(listing.seconds / mysqlStream.seconds, 2), fixed(listing.seconds / mysqlJsonStream.seconds, 2),
    fixed(listing.cpuSeconds, 2), String(listing.rows), mb(listing.bytes / 2 ** 20), mb(listing.idleRssMb), mb(listing.rssBeforeMb),
    mb(listing.peakRssMb), mb(listing.peakRssMb - listing.idleRssMb),
  ];
  return [
    `${machineLine(report.machine)}; ${report.rows} users (loaded in ${fixed(report.loadSeconds, 1)} s); list fetched by ${report.listClient}`,
    'CPU s: CPU time of the listing process (the service, or the mysql2 client) during the listing.',
    'idle RSS: once started, before any listing; over idle: the highest peak of the listings above it.',
    ...(baseline ? [`baseline: the service as of ${baseline.ref} (${baseline.commit.slice(0, 12)}), measured alternating with this one.`] : []),
    formatTable(
      ['list all users', 'seconds', 'x mysql2', 'x same statement', 'CPU s', 'rows', 'MB sent', 'idle RSS MB', 'RSS before MB', 'peak RSS MB', 'over idle MB'],
      [
        listingRow('service GET /api/users', service),
        ...(baseline ? [listingRow('baseline GET /api/users', baseline.listing)] : []),
        ['mysql2 stream, no HTTP', fixed(mysqlStream.seconds, 2), '1.00', '-', fixed(mysqlStream.cpuSeconds, 2),
          String(mysqlStream.rows), '-', mb(mysqlStream.idleRssMb), '-', mb(mysqlStream.peakRssMb), mb(mysqlStream.peakRssMb - mysqlStream.idleRssMb)],
        ["mysql2 stream, the service's statement", fixed(mysqlJsonStream.seconds, 2), '-', '1.00', fixed(mysqlJsonStream.cpuSeconds, 2),
          String(mysqlJsonStream.rows), '-', mb(mysqlJsonStream.idleRssMb), '-', mb(mysqlJsonStream.peakRssMb), mb(mysqlJsonStream.peakRssMb - mysqlJsonStream.idleRssMb)],
      ],
    ),
  ].join('\n');
}
