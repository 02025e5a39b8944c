import { parseArgs } from 'node:util';
import { whyNamespacesUnavailable } from '../test/faults/hosts/support.js';
import { FAULT_NAMES } from '../test/faults/scenarios/faults.js';
import { summaryLine } from '../test/faults/scenarios/report.js';
import { runFaults } from '../test/faults/scenarios/run-faults.js';

const USAGE = `Usage: npm run faults -- [--fault NAME|all] [--seconds N] [--clients N] [--seed N]

Runs the service (two instances, EVENTS=on) on a 3-node Galera cluster whose nodes are test hosts in
network namespaces, under a workload of creates, PUTs, conditional PUTs and PATCHes, DELETEs, reads,
list pages and event streams, while each fault is made and healed; then checks what the clients saw.

  --fault NAME   ${FAULT_NAMES.join(', ')}, or all (the default); may be repeated
  --seconds N    how long each fault lasts (default 20)
  --clients N    concurrent clients (default 24)
  --seed N       the mix's random sequence (default: random)

Prints per fault its operations, acknowledged and unknown, and anomalies by checker; the last line
is "faults: <operations> operations, <anomalies> anomalies". Exit 1 when there is an anomaly or an
instance did not rejoin the shared limits after a heal, 2 for
a wrong command line or when namespaces cannot be made here (root, iproute2 and nftables needed).`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({ options: { fault: { type: 'string', multiple: true }, seconds: { type: 'string' }, clients: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const faults = values.fault ?? ['all'];
for (const name of faults) if (name !== 'all' && !FAULT_NAMES.includes(name)) fail(`Unknown fault: ${name}`);
const positive = (text: string | undefined, fallback: number, name: string): number => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) fail(`--${name} must be a positive integer`);
  return value;
};
const seconds = positive(values.seconds, 20, 'seconds');
const clients = positive(values.clients, 24, 'clients');
const seed = positive(values.seed, Math.floor(Math.random() * 1e9) + 1, 'seed');
const unavailable = whyNamespacesUnavailable();
if (unavailable) {
  process.stderr.write(`Cannot run faults here: ${unavailable}\n`);
  process.exit(2);
}
process.stdout.write(`# faults ${faults.join(', ')}, ${seconds} s each, ${clients} clients, seed ${seed}\n`);
const results = await runFaults({ faults, seconds, clients, seed, calmSeconds: Math.min(5, Math.max(2, seconds / 4)), log: (line) => process.stdout.write(`${line}\n`) });
const line = summaryLine(results);
process.stdout.write(`${line}\n`);
process.exit(results.some((result) => result.verdict.anomalies.length > 0 || result.checked.limitsNotRejoined.length > 0) ? 1 : 0);
