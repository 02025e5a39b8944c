import { randomBytes } from 'node:crypto';
import type { DbConfig } from '../src/config/environment.js';
import { createBenchDatabase } from './database.js';
import { jsonOutput, onCleanup, startTsChild } from './lifecycle.js';
import { curlVersion, fetchListWithCurl } from './list-fetch-curl.js';
import { fetchList, type FetchedList, type FetchList } from './list-fetch.js';
import type { BenchOptions, ListClient } from './options.js';
import { readCpuSeconds, readProcessMemory, resetPeakRss, type ProcessMemory } from './proc.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults, type Machine } from './report.js';
import { startService } from './service.js';
import type { ListStatement } from './stream-rows.js';

interface DirectStream extends ProcessMemory {
  rows: number;
  seconds: number;
  cpuSeconds: number;
}

export interface MemoryReport {
  date: string;
  machine: Machine;
  rows: number;
  loadSeconds: number;
  /** What fetched the list from the service, e.g. "curl 7.88.1". */
  listClient: string;
  service: FetchedList & { cpuSeconds: number; rssBeforeMb: number; peakRssMb: number; peakCoversRequestOnly: boolean };
  /** mysql2 streaming the plain table read: the reference of the time target. */
  mysqlStream: DirectStream;
  /** mysql2 streaming the service's own list statement (rows nearly serialised by the database). */
  mysqlJsonStream: DirectStream;
  timeRatio: number;
  timeRatioToJsonStream: number;
}

/**
 * Loads `rows` users, then lists them `repeat` times through mysql2 alone and as many through
 * the service, alternating, reporting the median time and the highest peak RSS of each process. Writes bench/results/memory-latest.json.
 */
export async function runMemory(options: BenchOptions): Promise<void> {
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const client = chooseListClient(options.listClient);
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const service = await startService(db.config, password, options);

  progress(`loading ${options.rows} users into ${db.config.database}`);
  const loadStarted = performance.now();
  await db.resetUsers(options.rows);
  const loadSeconds = (performance.now() - loadStarted) / 1000;

  // Alternating runs, each side's median reported: one listing alone is at the mercy of a noisy machine.
  const directRuns: DirectStream[] = [];
  const jsonRuns: DirectStream[] = [];
  const serviceRuns: Array<MemoryReport['service']> = [];
  for (let run = 1; run <= options.repeat; run++) {
    progress(`mysql2 stream without HTTP (${run}/${options.repeat})`);
    directRuns.push(await streamDirect(db.config, options.rows, 'listUsers'));
    progress(`mysql2 stream of the service's own list statement (${run}/${options.repeat})`);
    jsonRuns.push(await streamDirect(db.config, options.rows, 'listUsersAsJson'));
    progress(`GET /api/users through the service (${run}/${options.repeat})`);
    const before = readProcessMemory(service.pid);
    // Without the reset, VmHWM would also cover whatever start-up needed.
    const peakCoversRequestOnly = resetPeakRss(service.pid);
    const cpuBefore = readCpuSeconds(service.pid);
    const fetched = await client.fetch(`${service.baseUrl}/api/users?pwd=${encodeURIComponent(password)}`, options.rows);
    const cpuSeconds = readCpuSeconds(service.pid) - cpuBefore;
    const after = readProcessMemory(service.pid);
    serviceRuns.push({ ...fetched, cpuSeconds, rssBeforeMb: before.rssMb, peakRssMb: after.peakRssMb, peakCoversRequestOnly });
  }
  await service.stop();
  const mysqlStream = median(directRuns);
  const mysqlJsonStream = median(jsonRuns);
  const fetched = { ...median(serviceRuns), peakRssMb: Math.max(...serviceRuns.map((run) => run.peakRssMb)) };

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
  };
  console.log(memoryTable(report));
  progress(`results written to ${await writeResults('memory-latest.json', report)}`);
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
  const { service, mysqlStream, mysqlJsonStream } = report;
  const mb = (value: number) => fixed(value, 1);
  return [
    `${machineLine(report.machine)}; ${report.rows} users (loaded in ${fixed(report.loadSeconds, 1)} s); list fetched by ${report.listClient}`,
    'CPU s: CPU time of the listing process (the service, or the mysql2 client) during the listing.',
    formatTable(
      ['list all users', 'seconds', 'x mysql2', 'x same statement', 'CPU s', 'rows', 'MB sent', 'RSS before MB', 'peak RSS MB'],
      [
        ['service GET /api/users', fixed(service.seconds, 2), fixed(report.timeRatio, 2), fixed(report.timeRatioToJsonStream, 2),
          fixed(service.cpuSeconds, 2), String(service.rows), mb(service.bytes / 2 ** 20), mb(service.rssBeforeMb), mb(service.peakRssMb)],
        ['mysql2 stream, no HTTP', fixed(mysqlStream.seconds, 2), '1.00', '-', fixed(mysqlStream.cpuSeconds, 2),
          String(mysqlStream.rows), '-', '-', mb(mysqlStream.peakRssMb)],
        ["mysql2 stream, the service's statement", fixed(mysqlJsonStream.seconds, 2), '-', '1.00', fixed(mysqlJsonStream.cpuSeconds, 2),
          String(mysqlJsonStream.rows), '-', '-', mb(mysqlJsonStream.peakRssMb)],
      ],
    ),
  ].join('\n');
}
