import type { DbConfig } from '../src/config/environment.js';
import type { DbDirectJob } from './db-direct.js';
import { firstJsonLine, jsonOutput, startTsChild, stopChild } from './lifecycle.js';
import type { Measurement } from './measurement.js';
import type { BenchOptions } from './options.js';
import type { Scenario } from './workload.js';

const START_TIMEOUT_MS = 15_000;

export interface HttpNoop {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts bench/http-noop.ts in its own process. */
export async function startHttpNoop(): Promise<HttpNoop> {
  const child = startTsChild('bench/http-noop.ts', ['ignore', 'pipe', 'inherit']);
  const stop = () => stopChild(child);
  try {
    const { port } = await firstJsonLine<{ port: number }>(child, START_TIMEOUT_MS, 'http-noop');
    return { baseUrl: `http://127.0.0.1:${port}`, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs bench/db-direct.ts for one scenario in its own process and returns what it measured. */
export function measureDbDirect(db: DbConfig, scenario: Scenario, options: BenchOptions, dbPid?: number, concurrency?: number): Promise<Measurement> {
  const job: DbDirectJob = {
    db,
    ...(dbPid === undefined ? {} : { dbPid }),
    scenario: scenario.name,
    durationSec: options.durationSec,
    warmupSec: options.warmupSec,
    // At a concurrency of its own: that many loops, each with a connection of the pool.
    connections: concurrency ?? options.connections,
    ...(concurrency === undefined ? {} : { poolSize: concurrency }),
  };
  // The job travels in the environment, so the database password never shows in `ps`.
  const child = startTsChild('bench/db-direct.ts', ['ignore', 'pipe', 'pipe'], {
    ...process.env,
    BENCH_JOB: JSON.stringify(job),
  });
  const budgetMs = (options.warmupSec + options.durationSec) * 1000 + START_TIMEOUT_MS + 10_000;
  return jsonOutput<Measurement>(child, budgetMs, `db-direct ${scenario.name}`);
}
