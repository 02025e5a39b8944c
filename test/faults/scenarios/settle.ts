import { pollUntil } from '../../helpers/poll-until.js';
import type { HostCluster } from '../cluster/host-cluster.js';

type NodeStatus = Record<string, string>;

async function statusOf(cluster: HostCluster): Promise<NodeStatus[]> {
  return Promise.all(
    cluster.nodes.map(async (node) => {
      const rows = await node
        .query<Array<{ Variable_name: string; Value: string }>>(
          "SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_cluster_status', 'wsrep_cluster_conf_id', 'wsrep_last_committed')",
        )
        .catch(() => []);
      return Object.fromEntries(rows.map((row) => [row.Variable_name, row.Value]));
    }),
  );
}

/** One view of the cluster, as every node reports it, when all are Synced in one primary component of all of them; else undefined. */
async function wholeView(cluster: HostCluster): Promise<string | undefined> {
  const states = await statusOf(cluster);
  const whole = states.every((s) => s.wsrep_local_state_comment === 'Synced' && s.wsrep_cluster_size === String(cluster.nodes.length) && s.wsrep_cluster_status === 'Primary');
  const views = new Set(states.map((s) => s.wsrep_cluster_conf_id));
  return whole && views.size === 1 ? [...views][0] : undefined;
}

/**
 * Resolves once every node is up, Synced, in one primary component of all of them, and still in
 * that same component a moment later: right after a short partition is healed, a node may not yet
 * have noticed it was cut off, and leave the component after all.
 */
export async function untilClusterWhole(cluster: HostCluster, timeoutMs = 120_000): Promise<void> {
  await pollUntil(
    'every node to be Synced in one cluster, for good',
    async () => {
      const view = await wholeView(cluster);
      if (view === undefined) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return (await wholeView(cluster)) === view ? true : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}
