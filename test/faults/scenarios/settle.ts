import { pollUntil } from '../../helpers/poll-until.js';
import type { HostCluster } from '../cluster/host-cluster.js';

/** Resolves once every node is up, Synced, in a primary component of all of them, and has applied the same last write. */
export async function untilClusterWhole(cluster: HostCluster, timeoutMs = 120_000): Promise<void> {
  await pollUntil(
    'every node to be Synced in one cluster',
    async () => {
      const states = await Promise.all(
        cluster.nodes.map(async (node) => {
          const rows = await node.query<Array<{ Variable_name: string; Value: string }>>("SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_cluster_status', 'wsrep_last_committed')").catch(() => []);
          return Object.fromEntries(rows.map((row) => [row.Variable_name, row.Value]));
        }),
      );
      const whole = states.every((s) => s.wsrep_local_state_comment === 'Synced' && s.wsrep_cluster_size === String(cluster.nodes.length) && s.wsrep_cluster_status === 'Primary');
      return whole && new Set(states.map((s) => s.wsrep_last_committed)).size === 1 ? true : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}
