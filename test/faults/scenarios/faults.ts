import { cut, healAll, isolate } from '../hosts/firewall.js';
import type { FaultEnvironment } from './environment.js';
import { untilClusterWhole } from './settle.js';

/** A fault: made while the workload runs, for about `seconds`, then healed; resolves once the cluster is whole again. */
export interface Fault {
  name: string;
  describe: string;
  inflict(env: FaultEnvironment, seconds: number, log: (line: string) => void): Promise<void>;
}

const sleep = (seconds: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** A partition shorter than Galera's evs.inactive_timeout (4 s here) and its view change would go unnoticed by the cluster. */
const PARTITION_MIN_S = 5;
const partitionFor = (seconds: number): Promise<void> => sleep(Math.max(PARTITION_MIN_S, seconds));

/** A partition made, held for `seconds`, healed, and the cluster waited for until whole again. */
async function partitioned(env: FaultEnvironment, seconds: number, make: () => void): Promise<void> {
  make();
  await partitionFor(seconds);
  healAll(env.network);
  await untilClusterWhole(env.cluster);
}
const hosts = (env: FaultEnvironment, ...roles: string[]) => roles.map((role) => env.network.host(role));

export const FAULTS: Fault[] = [
  {
    name: 'partition-primary',
    describe: 'the node instance 1 writes to (n1) cut off from the other two, both ways',
    async inflict(env, seconds) {
      const [n1, n2, n3] = hosts(env, 'n1', 'n2', 'n3');
      await partitioned(env, seconds, () => isolate(n1!, [n2!, n3!]));
    },
  },
  {
    name: 'cut-instance',
    describe: 'instance 1 cut from its node (n1) only; the cluster whole',
    async inflict(env, seconds) {
      const [s1, n1] = hosts(env, 's1', 'n1');
      await partitioned(env, seconds, () => cut(s1!, n1!));
    },
  },
  {
    name: 'isolate-each',
    describe: 'each node in turn cut off from the other two (a majority always remains)',
    async inflict(env, seconds) {
      const nodes = hosts(env, 'n1', 'n2', 'n3');
      for (const node of nodes) {
        await partitioned(env, seconds / 3, () => isolate(node!, nodes as typeof node[]));
      }
    },
  },
  {
    name: 'freeze',
    describe: 'the node in use (n1) frozen by SIGSTOP, then thawed',
    async inflict(env, seconds) {
      const node = env.cluster.nodes[0]!;
      node.freeze();
      try {
        await sleep(seconds);
      } finally {
        node.thaw();
      }
      await untilClusterWhole(env.cluster);
    },
  },
  {
    name: 'kill-all',
    describe: 'every node killed at once (SIGKILL), then the operator restart of docs/scaling.md',
    async inflict(env, _seconds, log) {
      await Promise.all(env.cluster.nodes.map((node) => node.kill()));
      const started = Date.now();
      const founder = await env.cluster.restartAfterCrash(log);
      log(`#   bootstrapped from ${founder.name} (the highest recovered seqno); cluster whole ${((Date.now() - started) / 1000).toFixed(1)} s after the crash`);
      await untilClusterWhole(env.cluster);
    },
  },
];

/** A random sequence of the other faults (of `among`), each as long. */
export function mixFault(random: () => number, steps = 3, among: Fault[] = FAULTS): Fault {
  return {
    name: 'mix',
    describe: `${steps} faults at random`,
    async inflict(env, seconds, log) {
      for (let i = 0; i < steps; i++) {
        const fault = among[Math.floor(random() * among.length)]!;
        log(`#   mix: ${fault.name}`);
        await fault.inflict(env, seconds, log);
        await sleep(1);
      }
    },
  };
}

export const FAULT_NAMES = [...FAULTS.map((fault) => fault.name), 'mix'];
