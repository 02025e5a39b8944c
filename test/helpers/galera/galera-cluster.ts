import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../free-ports.js';
import { GALERA_PROVIDER, GaleraNode } from './galera-node.js';

export interface GaleraCluster {
  readonly nodes: GaleraNode[];
  /** `DB_HOST` for the service: the nodes in the given order (by index), all by default. */
  hostList(order?: number[]): string;
  /** kill -9 of one node. */
  kill(index: number): Promise<void>;
  /** Starts a killed node again, joining the others; resolves once it is Synced. */
  restart(index: number): Promise<void>;
  /** Stops every node and removes every file; safe to call more than once. */
  stop(): Promise<void>;
}

const running = new Set<GaleraNode>();
let exitHookInstalled = false;

/** Galera can run here: the provider library and rsync (its state transfer) are installed. */
export function galeraAvailable(): boolean {
  return existsSync(GALERA_PROVIDER) && existsSync('/usr/bin/rsync');
}

/**
 * A Galera cluster of `size` private mariadbd processes on loopback: own data directories, sockets
 * and ports under a temporary directory (never the server on 3306). The first node founds the
 * cluster, the others join one at a time (one state transfer at a time per donor). Resolves once
 * every node is Synced. If starting fails, what started is stopped; if the test process exits
 * without calling stop, an exit hook kills the nodes.
 */
export async function startGaleraCluster(size = 3): Promise<GaleraCluster> {
  installExitHook();
  const root = mkdtempSync(join(tmpdir(), 'usvc-galera-'));
  const ports = await freePorts(size * 4);
  const nodes = Array.from(
    { length: size },
    (_, i) =>
      new GaleraNode(`node${i + 1}`, join(root, `node${i + 1}`), {
        sql: ports[i * 4]!,
        group: ports[i * 4 + 1]!,
        ist: ports[i * 4 + 2]!,
        sst: ports[i * 4 + 3]!,
      }),
  );
  const groupAddress = (node: GaleraNode): string => `127.0.0.1:${node.ports.group}`;
  let stopped = false;
  const cluster: GaleraCluster = {
    nodes,
    hostList: (order = nodes.map((_, i) => i)) => order.map((i) => `127.0.0.1:${nodes[i]!.ports.sql}`).join(','),
    async kill(index) {
      await nodes[index]!.kill();
    },
    async restart(index) {
      const node = nodes[index]!;
      await startWithRetry(node, nodes.filter((other) => other !== node).map(groupAddress));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // The data is thrown away, so nothing is gained by a clean shutdown's wait.
      await Promise.all(nodes.map((node) => node.kill()));
      for (const node of nodes) running.delete(node);
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    for (const [i, node] of nodes.entries()) {
      if (i > 0) node.prepareJoiner();
      running.add(node);
      await startWithRetry(node, nodes.slice(0, i).map(groupAddress));
    }
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/**
 * A joiner's state transfer can fail on a machine under load (the donor gives up, a port is taken
 * meanwhile); a second attempt usually succeeds, and a second failure is reported with the log.
 */
async function startWithRetry(node: GaleraNode, peers: string[]): Promise<void> {
  try {
    await node.start(peers);
  } catch (error) {
    if (peers.length === 0) throw error;
    console.error(`# ${(error as Error).message}\n# trying once more`);
    await node.start(peers);
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = (): void => {
    for (const node of running) node.killNow();
  };
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
}
