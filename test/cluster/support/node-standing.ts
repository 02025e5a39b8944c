import type { ChildService } from '../../helpers/child-service.js';
import type { GaleraNode } from '../../helpers/galera/galera-node.js';
import { pollUntil } from '../../helpers/poll-until.js';
import type { Outcome } from './mixed-load.js';

/** The service's name for a node in its log lines: its DB_HOST entry. */
export const serverName = (node: GaleraNode): string => `127.0.0.1:${node.ports.sql}`;

/** The service's log lines about one server in the order written, from its `since`-th line on. */
export function serverLines(child: ChildService, node: GaleraNode, since = 0): Array<Record<string, unknown>> {
  const name = serverName(node);
  return child.process.entries().slice(since).filter((entry) => entry.server === name);
}

/** A time a node was left out, in this process's performance.now() time: `to` is Infinity while it still is. */
export interface OutPeriod {
  server: string;
  reason: string;
  from: number;
  to: number;
}

/** When the service had each of `nodes` left out, by its log lines from the `since`-th on (their wall-clock `time`). */
export function outPeriods(child: ChildService, nodes: GaleraNode[], since: number): OutPeriod[] {
  const offset = Date.now() - performance.now();
  const periods: OutPeriod[] = [];
  for (const node of nodes) {
    let open: OutPeriod | undefined;
    for (const entry of serverLines(child, node, since)) {
      const at = Date.parse(String(entry.time)) - offset;
      if (entry.msg === 'database server left out' && open === undefined) {
        open = { server: serverName(node), reason: String(entry.reason), from: at, to: Number.POSITIVE_INFINITY };
        periods.push(open);
      } else if (entry.msg === 'database server taken back' && open !== undefined) {
        open.to = at;
        open = undefined;
      }
    }
  }
  return periods;
}

/** Whether the request was in flight while one of the periods lasted. */
export const inFlightDuring = (outcome: Outcome, periods: OutPeriod[]): boolean => periods.some((period) => outcome.sentAt <= period.to && outcome.at >= period.from);

/** One of the node's global status values (SHOW GLOBAL STATUS). */
export async function status(node: GaleraNode, name: string): Promise<string | undefined> {
  const rows = await node.query<Array<{ Value: string }>>('SHOW GLOBAL STATUS LIKE ?', [name]);
  return rows[0]?.Value;
}

/**
 * Resolves (performance.now()) once `survivor` sees a primary component of `size` nodes: the others
 * have dropped the lost node and commit again. Until then a write through them waits for the lost node.
 */
export function componentFormed(survivor: GaleraNode, size: number): Promise<number> {
  return pollUntil(
    `${survivor.name} to be in a primary component of ${size}`,
    async () => ((await status(survivor, 'wsrep_cluster_status')) === 'Primary' && (await status(survivor, 'wsrep_cluster_size')) === String(size) ? performance.now() : undefined),
    { timeoutMs: 60_000 },
  );
}
