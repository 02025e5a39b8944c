import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { whyNamespacesUnavailable } from '../faults/hosts/support.js';
import { startEnvironment, type FaultEnvironment } from '../faults/scenarios/environment.js';
import { FAULTS, mixFault, type Fault } from '../faults/scenarios/faults.js';
import { describeResult } from '../faults/scenarios/report.js';
import { runFault } from '../faults/scenarios/run-fault.js';
import { seededRandom } from '../faults/scenarios/run-faults.js';
import { CHECKERS } from '../faults/checkers/all.js';

/**
 * A short run of every fault of `npm run faults` (docs/scaling.md has the table): each made and
 * healed under the workload, and every promised property holding, by the checkers' verdict.
 */
const why = whyNamespacesUnavailable();
const unavailable = why && `fault runs skipped: ${why}`;

const random = seededRandom(29);
const options = { seconds: 5, calmSeconds: 1, clients: 8, random, log: (line: string) => console.log(line) };
const noAnomalies = Object.fromEntries(CHECKERS.map((name) => [name, 0]));
// The mix here draws from the quicker faults: the whole-cluster crash and the isolation of each node have runs of their own above it.
const quick = FAULTS.filter((fault) => ['partition-primary', 'cut-instance', 'freeze'].includes(fault.name));
const faults: Fault[] = [...FAULTS, mixFault(random, 2, quick)];

describe('the cluster under faults', { skip: unavailable }, () => {
  let env: FaultEnvironment;
  before(async () => {
    env = await startEnvironment(options.log);
  });
  after(async () => {
    await env?.stop();
  });

  for (const [i, fault] of faults.entries()) {
    test(`${fault.name} (${fault.describe}): no anomaly on any checker`, async () => {
      const result = await runFault(env, fault, `t${env.network.suffix}${i}`, options);
      for (const line of describeResult(result)) console.log(`# ${line}`);
      assert.ok(result.acknowledged > 0, 'the workload had writes acknowledged');
      assert.deepEqual(result.byChecker, noAnomalies, describeResult(result, 20).join('\n'));
      assert.deepEqual(result.checked.limitsNotRejoined, [], 'every instance counts the shared limits with the others again after the heal');
    });
  }
});
