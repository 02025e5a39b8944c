import { measureHttp } from './http-load.js';
import type { Measurement } from './measurement.js';
import type { MeasuredPids } from './proc.js';
import type { BenchOptions, LoadGenerator } from './options.js';
import { measureHttpWithWrk, wrkVersion } from './wrk-load.js';
import type { Scenario } from './workload.js';

export type MeasureHttp = (
  baseUrl: string,
  pids: MeasuredPids,
  scenario: Scenario,
  password: string,
  options: BenchOptions,
) => Promise<Measurement>;

export interface ChosenLoad {
  /** What the report names, e.g. "wrk 4.1.0, 1 thread". */
  label: string;
  measure: MeasureHttp;
  /** Said once before the run when the choice deserves a word. */
  note?: string;
}

/**
 * wrk (C, one thread) costs the shared cores several times less per request than autocannon
 * (Node, in the benchmark's own process), so with it more of the machine is left to the service
 * and the ceilings; autocannon is the fallback that needs nothing installed.
 */
export function chooseLoad(choice: LoadGenerator): ChosenLoad {
  const wrk = choice === 'autocannon' ? undefined : wrkVersion();
  if (wrk) return { label: `${wrk}, 1 thread`, measure: measureHttpWithWrk };
  if (choice === 'wrk') throw new Error('--load wrk: wrk is not installed (Debian: apt-get install wrk)');
  return {
    label: 'autocannon',
    measure: measureHttp,
    note: choice === 'auto' ? 'wrk is not installed: autocannon generates the load (apt-get install wrk for a lighter load generator)' : undefined,
  };
}
