import { randomBytes } from 'node:crypto';
import { startEnvironment } from './environment.js';
import { FAULTS, mixFault, type Fault } from './faults.js';
import { describeResult } from './report.js';
import { runFault, type FaultResult, type RunOptions } from './run-fault.js';

/** Seeded so that a mix can be run again: a small linear congruential generator. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export interface FaultRunOptions extends Omit<RunOptions, 'random'> {
  /** Fault names, or ['all']. */
  faults: string[];
  seed: number;
}

/** The faults chosen, run one after another on one environment that is removed at the end whatever happens. */
export async function runFaults(options: FaultRunOptions): Promise<FaultResult[]> {
  const random = seededRandom(options.seed);
  const chosen = chooseFaults(options.faults, random);
  const env = await startEnvironment(options.log);
  const results: FaultResult[] = [];
  try {
    const runTag = randomBytes(2).toString('hex');
    for (const [i, fault] of chosen.entries()) {
      const result = await runFault(env, fault, `f${runTag}${i}`, { ...options, random });
      for (const line of describeResult(result)) options.log(line);
      results.push(result);
    }
  } finally {
    await env.stop();
  }
  return results;
}

export function chooseFaults(names: string[], random: () => number): Fault[] {
  const all = names.includes('all');
  const chosen = FAULTS.filter((fault) => all || names.includes(fault.name));
  if (all || names.includes('mix')) chosen.push(mixFault(random));
  return chosen;
}
