import { createHistogram } from 'node:perf_hooks';

/** One measured run of one load against one target. */
export interface Measurement {
  /** Operations per second that got the expected answer; errors are not throughput. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  errors: number;
  /** What went wrong, by kind: an unexpected HTTP status ("500"), "timeout", a driver error code... */
  errorKinds: Record<string, number>;
  seconds: number;
  /** CPU time of the process under test (server or db-direct client) per successful operation. */
  cpuUsPerOp: number | null;
  /** CPU time of the database server per successful operation, when it runs on this machine. */
  dbCpuUsPerOp?: number | null;
}

/** Counts outcomes and latencies while a load runs. */
export class Tally {
  private readonly latencies = createHistogram();
  private ok = 0;
  private readonly errorKinds: Record<string, number> = {};

  latency(ms: number): void {
    // The histogram holds integers: nanoseconds keep sub-millisecond latencies distinct.
    this.latencies.record(Math.max(1, Math.round(ms * 1e6)));
  }

  success(): void {
    this.ok++;
  }

  failure(kind: string, count = 1): void {
    if (count > 0) this.errorKinds[kind] = (this.errorKinds[kind] ?? 0) + count;
  }

  result(seconds: number, cpuSeconds?: number): Measurement {
    const errors = Object.values(this.errorKinds).reduce((sum, count) => sum + count, 0);
    const percentile = (p: number) => (this.latencies.count === 0 ? 0 : this.latencies.percentile(p) / 1e6);
    return {
      reqPerSec: this.ok / seconds,
      p50Ms: percentile(50),
      p99Ms: percentile(99),
      ok: this.ok,
      errors,
      errorKinds: { ...this.errorKinds },
      seconds,
      cpuUsPerOp: cpuSeconds === undefined || this.ok === 0 ? null : (cpuSeconds * 1e6) / this.ok,
    };
  }
}

/**
 * The run with the median throughput stands for all of a side's runs (its latencies and CPU with
 * it), but errors are those of every run: a median must not hide a failure.
 */
export function medianRun(runs: readonly Measurement[]): Measurement {
  const sorted = [...runs].sort((a, b) => a.reqPerSec - b.reqPerSec);
  const errorKinds: Record<string, number> = {};
  for (const run of runs) for (const [kind, count] of Object.entries(run.errorKinds)) errorKinds[kind] = (errorKinds[kind] ?? 0) + count;
  return {
    ...sorted[Math.floor(sorted.length / 2)]!,
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    errorKinds,
  };
}
