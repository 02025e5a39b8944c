import { EXPANDED_BATCHES } from '../../events/support/numbered.js';
import { pollUntil, waitUntil } from '../../helpers/poll-until.js';
import type { HostNode } from '../cluster/host-node.js';
import type { OutboxEvent } from '../checkers/events.js';
import type { MarkedUser } from '../checkers/exactly-once.js';

/** Every user of the run (name or email with its tag) as this node holds it. */
export function usersOf(node: HostNode, database: string, tag: string): Promise<MarkedUser[]> {
  return patiently(() => node.query<MarkedUser[]>(`SELECT id, name, email FROM \`${database}\`.users WHERE name LIKE ? OR email LIKE ? ORDER BY id`, [`${tag}-%`, `${tag}-%`], { causal: true }));
}

/** A read of the final state, tried again while the node refuses it for a moment (1047, not ready, after a view change). */
function patiently<T>(read: () => Promise<T>): Promise<T> {
  return pollUntil('a final read the node answers', () => read().catch(() => undefined), { timeoutMs: 60_000, intervalMs: 500 });
}

/** The node's whole outbox in id order, once every event written has its id (bounded: then those without one are left out). */
export async function outboxOf(node: HostNode, database: string): Promise<OutboxEvent[]> {
  await waitUntil('every event to be numbered', async () => {
    const [row] = await node.query<Array<{ n: number }>>(`SELECT COUNT(*) AS n FROM \`${database}\`.event_batches WHERE last_id IS NULL`, [], { causal: true });
    return Number(row!.n) === 0;
  }, { timeoutMs: 30_000, intervalMs: 250 }).catch(() => undefined);
  const rows = await patiently(() => node.query<OutboxEvent[]>(`SELECT id, type, user_id, request_id FROM (${EXPANDED_BATCHES.replace('FROM event_batches', `FROM \`${database}\`.event_batches`)}) e WHERE id IS NOT NULL ORDER BY id`, [], { causal: true }));
  return rows.map((row) => ({ ...row, id: Number(row.id), user_id: Number(row.user_id) }));
}
