import { byUser, effectOf, isWrite, mayFollow, sameValue, type Anomaly, type NodeState, type Op, type UserValue } from './history.js';

const CHECKER = 'durability';

/**
 * Every acknowledged write is in the final state of every node, or overwritten by a write that may
 * have come after it; every node ends with the same users; no node holds a value nobody wrote.
 */
export function checkDurability(history: Op[], nodes: NodeState[]): Anomaly[] {
  const anomalies: Anomaly[] = [];
  nodes.forEach((node, index) => {
    if (index > 0 && !sameState(nodes[0]!, node)) anomalies.push({ checker: CHECKER, message: `node ${index + 1} ends with other users than node 1` });
  });
  for (const [userId, ops] of byUser(history)) {
    const writes = ops.filter((op) => isWrite(op) && op.outcome !== 'failed');
    nodes.forEach((node, index) => {
      const final = node.get(userId) ?? null;
      const writer = writes.filter((op) => sameValue(effectOf(op), final));
      if (final !== null && writer.length === 0) anomalies.push({ checker: CHECKER, message: `user ${userId} on node ${index + 1} holds ${show(final)}, which no request wrote` });
      for (const acked of writes.filter((op) => op.outcome === 'ok')) {
        if (!writer.some((op) => op === acked || mayFollow(op, acked))) {
          anomalies.push({ checker: CHECKER, message: `acknowledged ${acked.kind} #${acked.id} of user ${userId} lost on node ${index + 1}: it holds ${show(final)}`, ops: [acked.id] });
        }
      }
    });
  }
  return anomalies;
}

function sameState(a: NodeState, b: NodeState): boolean {
  if (a.size !== b.size) return false;
  for (const [id, value] of a) if (!sameValue(value, b.get(id))) return false;
  return true;
}

const show = (value: UserValue | null): string => (value === null ? 'no user' : `"${value.name}"`);
