import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markSafeToBootstrap } from './grastate.js';
import { HostNode, SQL_PORT } from './host-node.js';
import type { Host } from '../hosts/network.js';
import { onCleanup } from '../hosts/cleanup.js';

export interface HostCluster {
  nodes: HostNode[];
  /** DB_HOST for a service: every node, in the given order of indexes. */
  hostList(order: number[]): string;
  /** After every node crashed: the operator's restart of docs/scaling.md; resolves with the node that bootstrapped. */
  restartAfterCrash(): Promise<HostNode>;
  /** Kills every node and removes the files; safe to call more than once. */
  stop(): Promise<void>;
}

/** A Galera cluster with one node per test host: the first founds it, the others join one at a time. */
export async function startHostCluster(hosts: Host[]): Promise<HostCluster> {
  const root = mkdtempSync(join(tmpdir(), 'usvc-faults-'));
  const forgetFiles = onCleanup(`files in ${root}`, () => rmSync(root, { recursive: true, force: true }));
  const nodes = hosts.map((host) => new HostNode(host, join(root, host.role)));
  const peersOf = (node: HostNode): string[] => nodes.filter((other) => other !== node).map((other) => other.groupAddress);
  let stopped = false;
  const cluster: HostCluster = {
    nodes,
    hostList: (order) => order.map((i) => `${nodes[i]!.host.address}:${SQL_PORT}`).join(','),
    async restartAfterCrash() {
      const founder = await chooseFounder(nodes);
      markSafeToBootstrap(join(founder.dataDir, 'grastate.dat'));
      await founder.start(peersOf(founder), { bootstrap: true });
      for (const node of nodes) if (node !== founder) await node.start(peersOf(node));
      return founder;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all(nodes.map((node) => node.kill()));
      rmSync(root, { recursive: true, force: true });
      forgetFiles();
    },
  };
  try {
    await nodes[0]!.initialise();
    await nodes[0]!.start(peersOf(nodes[0]!), { bootstrap: true });
    // The services reach the nodes over the test network: root without a password, on hosts only this run made.
    await nodes[0]!.query("CREATE USER IF NOT EXISTS 'root'@'10.231.%'");
    await nodes[0]!.query("GRANT ALL ON *.* TO 'root'@'10.231.%' WITH GRANT OPTION");
    for (const node of nodes.slice(1)) await node.start(peersOf(node));
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/**
 * The node to bootstrap from: the highest seqno, read from grastate.dat when a clean shutdown wrote
 * it there, else recovered from InnoDB by `mariadbd --wsrep-recover` (after a crash it is -1).
 */
async function chooseFounder(nodes: HostNode[]): Promise<HostNode> {
  const seqnos = await Promise.all(
    nodes.map(async (node) => {
      const written = node.grastate()?.seqno ?? -1;
      return written >= 0 ? written : node.recover();
    }),
  );
  const best = Math.max(...seqnos);
  return nodes[seqnos.indexOf(best)]!;
}
