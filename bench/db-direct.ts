/**
 * The storage ceiling, run as its own process: `connections` loops issue the scenario's statements
 * through a mysql2 pool configured as the service's (same size, prepared statements via execute),
 * with no HTTP in between. Reads its job from BENCH_JOB and prints a Measurement as JSON.
 */
import type { DbConfig } from '../src/config/environment.js';
import { createPool, endPool } from '../src/db/pool.js';
import { defaultTuning } from '../src/db/pool-tuning.js';
import { directOperation } from './direct-operations.js';
import { Tally } from './measurement.js';
import { readCpuSeconds } from './proc.js';
import { scenarioNamed } from './workload.js';

export interface DbDirectJob {
  db: DbConfig;
  /** The database server's process, when it runs on this machine: its CPU per operation is reported too. */
  dbPid?: number;
  scenario: string;
  durationSec: number;
  warmupSec: number;
  connections: number;
  /** The pool's size: the service's (DB_POOL_SIZE, 10) unless given. */
  poolSize?: number;
}

const job = JSON.parse(process.env.BENCH_JOB ?? '') as DbDirectJob;
const scenario = scenarioNamed(job.scenario);
const pool = createPool(job.db, job.poolSize === undefined ? defaultTuning : { ...defaultTuning, connectionLimit: job.poolSize });

function execute(statement: string, values: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    pool.execute({ sql: statement, values }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** A text-protocol query whose columns arrive as bytes, as the service streams its list and pages. */
function queryRaw(statement: string, values: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    pool.query({ sql: statement, values, typeCast: false }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Runs the n-th operation; true when its result is the one the HTTP answer would be built from. */
async function perform(n: number): Promise<boolean> {
  const operation = directOperation(scenario, n);
  const run = operation.protocol === 'execute' ? execute : queryRaw;
  return operation.expected(await run(operation.sql, operation.values));
}

let next = 0;
async function loop(until: number, tally: Tally | undefined): Promise<void> {
  while (performance.now() < until) {
    const started = performance.now();
    let outcome: string | undefined;
    try {
      if (!(await perform(next++))) outcome = 'unexpected result';
    } catch (error) {
      outcome = (error as { code?: string }).code ?? 'error';
    }
    if (!tally) continue;
    tally.latency(performance.now() - started);
    if (outcome === undefined) tally.success();
    else tally.failure(outcome);
  }
}

/** Runs the loops for `seconds`; returns the wall-clock and CPU seconds they took. */
async function run(seconds: number, tally?: Tally): Promise<[number, number, number | undefined]> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const dbBefore = job.dbPid === undefined ? undefined : readCpuSeconds(job.dbPid);
  const until = started + seconds * 1000;
  await Promise.all(Array.from({ length: job.connections }, () => loop(until, tally)));
  const cpu = process.cpuUsage(cpuBefore);
  const dbSeconds = dbBefore === undefined ? undefined : readCpuSeconds(job.dbPid!) - dbBefore;
  return [(performance.now() - started) / 1000, (cpu.user + cpu.system) / 1e6, dbSeconds];
}

if (job.warmupSec > 0) await run(job.warmupSec);
const tally = new Tally();
const [seconds, cpuSeconds, dbSeconds] = await run(job.durationSec, tally);
const measured = tally.result(seconds, cpuSeconds);
const dbCpuUsPerOp = dbSeconds === undefined || measured.ok === 0 ? null : (dbSeconds * 1e6) / measured.ok;
process.stdout.write(JSON.stringify({ ...measured, dbCpuUsPerOp }));
await endPool(pool);
