import { byUser, sameValue, type Anomaly, type Op, type UserValue } from './history.js';

const CHECKER = 'linearizability';

/** The model of one user: absent (before its create, after its delete) or its fields. */
type State = UserValue | null;

/** The answer an op gives in a state, and the state it leaves; undefined when it cannot happen (a create of a user that exists). */
function apply(op: Op, state: State): { answer: string; next: State } | undefined {
  switch (op.kind) {
    case 'create':
      return state === null ? { answer: 'ok', next: op.value! } : undefined;
    case 'put':
      return state === null ? { answer: '404', next: null } : { answer: 'ok', next: op.value! };
    case 'cas-put':
    case 'cas-patch':
      if (state === null) return { answer: '404', next: null };
      return sameValue(state, op.expected) ? { answer: 'ok', next: op.value! } : { answer: '412', next: state };
    case 'delete':
      return state === null ? { answer: '404', next: null } : { answer: 'ok', next: null };
    case 'read':
      return { answer: state === null ? '404' : `=${state.name}\u0000${state.email}`, next: state };
    case 'list':
      return { answer: state === null ? 'absent' : `=${state.name}\u0000${state.email}`, next: state };
  }
}

/** What the client saw, in apply's terms; undefined for an unknown outcome (any answer). */
function observed(op: Op, userId: number): string | undefined {
  if (op.outcome === 'unknown') return undefined;
  if (op.kind === 'read') return op.read == null ? '404' : `=${op.read.name}\u0000${op.read.email}`;
  if (op.kind === 'list') {
    const seen = op.page!.find((user) => user.id === userId)!;
    return `=${seen.name}\u0000${seen.email}`;
  }
  return op.outcome === 'ok' ? 'ok' : String(op.status);
}

export interface LinearizabilityOptions {
  /** States explored per user before giving up on it (reported as undecided, not as an anomaly). */
  budget?: number;
}

export interface LinearizabilityResult {
  anomalies: Anomaly[];
  undecided: number[];
}

/**
 * Per user, a search for an order of its operations that respects real time (an op answered before
 * another was sent comes first) and the model, in the manner of Wing and Gong with Lowe's
 * memoisation of (operations done, state): operations with an unknown outcome may take effect at
 * any point after they were sent, or never; failed requests other than 404 and 412 changed nothing
 * and are left out; a list page tells only of the users it shows.
 */
export function checkLinearizability(history: Op[], { budget = 200_000 }: LinearizabilityOptions = {}): LinearizabilityResult {
  const anomalies: Anomaly[] = [];
  const undecided: number[] = [];
  for (const [userId, all] of byUser(history)) {
    const ops = all.filter((op) => relevant(op, userId));
    const verdict = searchOrder(ops, userId, budget);
    if (verdict === 'undecided') undecided.push(userId);
    else if (verdict === false) anomalies.push({ checker: CHECKER, message: `user ${userId}: no order of its ${ops.length} operations explains what the clients saw`, ops: ops.map((op) => op.id) });
  }
  return { anomalies, undecided };
}

function relevant(op: Op, userId: number): boolean {
  if (op.kind === 'list') return op.outcome === 'ok' && op.page!.some((user) => user.id === userId);
  if (op.outcome === 'failed') return op.status === 404 || op.status === 412;
  if (op.kind === 'read') return op.outcome === 'ok';
  return true;
}

function searchOrder(ops: Op[], userId: number, budget: number): boolean | 'undecided' {
  const n = ops.length;
  const answers = ops.map((op) => observed(op, userId));
  const ends = ops.map((op) => (op.outcome === 'unknown' || op.answered === undefined ? Infinity : op.answered));
  const mustDo = ops.map((op) => op.outcome !== 'unknown');
  const seen = new Set<string>();
  let explored = 0;
  const done = new Array<boolean>(n).fill(false);
  let remaining = mustDo.filter(Boolean).length;

  const visit = (state: State): boolean | 'undecided' => {
    if (remaining === 0) return true;
    const key = `${done.map((d) => (d ? 1 : 0)).join('')}|${state === null ? '' : `${state.name}\u0000${state.email}`}`;
    if (seen.has(key)) return false;
    seen.add(key);
    if (++explored > budget) return 'undecided';
    // An op may go next only if no op not yet done was answered before it was sent.
    let earliestEnd = Infinity;
    for (let i = 0; i < n; i++) if (!done[i] && mustDo[i]) earliestEnd = Math.min(earliestEnd, ends[i]!);
    for (let i = 0; i < n; i++) {
      if (done[i] || ops[i]!.sent > earliestEnd) continue;
      const step = apply(ops[i]!, state);
      if (step === undefined || (answers[i] !== undefined && answers[i] !== step.answer)) continue;
      done[i] = true;
      if (mustDo[i]) remaining--;
      const result = visit(step.next);
      done[i] = false;
      if (mustDo[i]) remaining++;
      if (result !== false) return result;
    }
    return false;
  };
  return visit(null);
}
