import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markSafeToBootstrap, type Position } from './grastate.js';
import { HostNode, SQL_PORT } from './host-node.js';
import type { Host } from '../hosts/network.js';
import { onCleanup } from '../hosts/cleanup.js';

export interface HostCluster {
  nodes: HostNode[];
  /** DB_HOST for a service: every node, in the given order of indexes. */
  hostList(order: number[]): string;
  /** After every node crashed: the operator's restart of docs/scaling.md; resolves with the node that bootstrapped. */
  restartAfterCrash(log?: (line: string) => void): Promise<HostNode>;
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
    async restartAfterCrash(log = () => {}) {
      const started = Date.now();
      const lap = (what: string): void => log(`#   ${what} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const positions = await lastPositions(nodes);
      lap(`positions recovered (${positions.map((p, i) => `${nodes[i]!.name} ${p.seqno}`).join(', ')})`);
      const best = Math.max(...positions.map((position) => position.seqno));
      const founder = nodes[positions.findIndex((position) => position.seqno === best)]!;
      markSafeToBootstrap(join(founder.dataDir, 'grastate.dat'));
      await founder.start(peersOf(founder), { bootstrap: true, position: positions[nodes.indexOf(founder)] });
      lap(`${founder.name} bootstrapped`);
      for (const [i, node] of nodes.entries()) {
        if (node === founder) continue;
        await node.start(peersOf(node), { position: positions[i] });
        lap(`${node.name} joined by ${node.lastJoin()}`);
      }
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
 * Each node's last committed position: grastate.dat's when a clean shutdown wrote it there, else
 * recovered from InnoDB by `mariadbd --wsrep-recover` (after a crash grastate.dat says -1).
 */
function lastPositions(nodes: HostNode[]): Promise<Position[]> {
  return Promise.all(
    nodes.map(async (node) => {
      const written = node.grastate();
      return written && written.seqno >= 0 ? { uuid: written.uuid, seqno: written.seqno } : node.recover();
    }),
  );
}
