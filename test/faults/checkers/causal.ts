import { byUser, effectOf, isWrite, mayFollow, sameValue, type Anomaly, type Op, type UserValue } from './history.js';

const CHECKER = 'causal';

/**
 * An acknowledged write through one instance is never followed by an older value through the
 * other: a read sent after the write was answered returns neither a value whose write was answered
 * before the acknowledged one was sent, nor "no user" while no delete may have come in between.
 */
export function checkCausalReads(history: Op[]): Anomaly[] {
  const anomalies: Anomaly[] = [];
  for (const [userId, ops] of byUser(history)) {
    const writes = ops.filter((op) => isWrite(op) && op.outcome !== 'failed');
    const acked = writes.filter((op) => op.outcome === 'ok');
    for (const read of ops.filter((op) => (op.kind === 'read' || op.kind === 'list') && op.outcome === 'ok')) {
      const value = readValue(read, userId);
      for (const write of acked) {
        if (write.instance === read.instance || write.answered! >= read.sent) continue;
        if (isOlder(value, write, read, writes)) {
          anomalies.push({ checker: CHECKER, message: `user ${userId}: ${read.kind} #${read.id} through instance ${read.instance + 1} saw ${value === null ? 'no user' : `"${value.name}"`} after ${write.kind} #${write.id} through instance ${write.instance + 1} was acknowledged`, ops: [write.id, read.id] });
          break;
        }
      }
    }
  }
  return anomalies;
}

function readValue(read: Op, userId: number): UserValue | null {
  if (read.kind === 'read') return read.read ?? null;
  const seen = read.page!.find((user) => user.id === userId)!;
  return { name: seen.name, email: seen.email };
}

/** The value read cannot have been current after `write`: every write that leaves it was answered before `write` was sent. */
function isOlder(value: UserValue | null, write: Op, read: Op, writes: Op[]): boolean {
  if (sameValue(value, effectOf(write))) return false;
  const sources = writes.filter((op) => sameValue(effectOf(op), value) && op.sent < read.answered!);
  if (value === null) return !sources.some((op) => mayFollow(op, write));
  return sources.length > 0 && sources.every((op) => !mayFollow(op, write));
}
