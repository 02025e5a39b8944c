/** `npm run bench`: see bench/options.ts for the flags, bench/throughput.ts, memory.ts, cluster.ts, finding-costs.ts and online-index.ts for the modes. */
import { runCluster } from './cluster.js';
import { runFinding } from './finding-costs.js';
import { runInstructions } from './instructions.js';
import { runLimits } from './limits.js';
import { runStartup } from './startup.js';
import { cleanUp, guardRun } from './lifecycle.js';
import { runMemory } from './memory.js';
import { runOnlineIndex } from './online-index.js';
import { parseOptions, type BenchOptions } from './options.js';
import { prepareRunner } from './runner.js';
import { runThroughput, sidesOf } from './throughput.js';
import { runStreams } from './streams.js';
import { runWebhooks } from './webhooks.js';
import { runTracing } from './tracing.js';
import { scenarioNamed } from './workload.js';

const options = parseOptions(process.argv.slice(2));
guardRun(deadlineMs(options));
let exitCode = 0;
try {
  prepareRunner(options.runner);
  const run = { memory: runMemory, throughput: runThroughput, cluster: runCluster, finding: runFinding, 'online-index': runOnlineIndex, webhooks: runWebhooks, streams: runStreams, limits: runLimits, startup: runStartup, tracing: runTracing, instructions: runInstructions }[options.mode];
  await run(options);
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);

/** Generous for the work asked, but finite: the run never hangs. */
function deadlineMs(o: BenchOptions): number {
  if (o.mode === 'memory') return (120 + o.rows / 5000) * 1000;
  // Twelve requests a round; the slowest scan a million users, a second or two each on a busy machine.
  if (o.mode === 'finding') return (120 + o.rows / 5000 + (o.tries + 1) * 12 * (2 + o.rows / 250_000)) * 1000;
  const run = o.warmupSec + o.durationSec;
  // Starting two Galera clusters takes up to a minute on a busy machine.
  // Loading, then building three indexes under load: about a minute for a million users on a busy machine.
  if (o.mode === 'online-index') return (180 + o.rows / 2000) * 1000;
  // Two phases of load, each followed by the wait for its deliveries (at most two minutes).
  if (o.mode === 'webhooks' && o.endpoints.length > 0) return o.endpoints.reduce((sum, count) => sum + 90 + count / 5 + o.durationSec + 60, 60) * 1000;
  if (o.mode === 'webhooks') return (120 + 2 * (o.durationSec + 120)) * 1000;
  // Each step: opening its streams (a thousand a second or so), its writes, and the wait for every event to arrive (at most a minute).
  if (o.mode === 'streams') return (120 + o.listeners.split(',').reduce((sum, step) => sum + Number(step.split('@')[0]) / 500 + o.durationSec + 90, 0)) * 1000;
  // The cost rounds, then two accuracy runs of three instances each (starting them takes a while).
  // Loading the table (a million users in some seconds), then each start until its indexes are built, per side and run.
  if (o.mode === 'tracing') return (300 + o.scenarios.length * o.repeat * 5 * (run + 15) + 2 * o.repeat * (o.durationSec + 5)) * 1000;
  // Per process (--repeat of each build): its start under callgrind, then per scenario 30 000 requests
  // uninstrumented (some 1 ms each) and three counts instrumented (some 10 ms a request, 30 on a busy machine).
  if (o.mode === 'instructions') return (600 + o.repeat * 2 * (300 + o.scenarios.length * (30_000 * 0.01 + 3 * o.requests * 0.03))) * 1000;
  if (o.mode === 'startup') return (120 + o.repeat * (o.baseline ? 2 : 1) * (60 + o.rows / 5000)) * 1000;
  if (o.mode === 'limits') return (300 + o.scenarios.length * o.repeat * 2 * (run + 15) + 2 * (o.accuracySec + 110)) * 1000;
  if (o.mode === 'cluster') return (180 + o.scenarios.length * o.repeat * 2 * (run + 20)) * 1000;
  // Each scenario's rounds measure the database alone and every service side (sidesOf).
  const sides = 1 + o.directConcurrency.length + sidesOf(o).length;
  return (60 + o.repeat * (run + 15) + o.scenarios.length * o.repeat * sides * (run + 10) + seedingSeconds(o, sides)) * 1000;
}

/** A table only read is loaded once per scenario, one that is written before every run; a million users take seconds. */
function seedingSeconds(o: BenchOptions, sides: number): number {
  return o.scenarios
    .map((name) => scenarioNamed(name))
    .reduce((sum, s) => sum + (s.writes ? o.repeat * sides : 1) * (s.tableRows / 20_000), 0);
}
