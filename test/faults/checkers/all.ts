import { attributeUnknownCreates } from './attribution.js';
import { checkCausalReads } from './causal.js';
import { checkDurability } from './durability.js';
import { checkEvents, type OutboxEvent, type ReaderEvents } from './events.js';
import { checkExactlyOnce, type MarkedUser } from './exactly-once.js';
import type { Anomaly, NodeState, Op } from './history.js';
import { checkLinearizability } from './linearizability.js';
import { checkLostUpdates } from './lost-update.js';

/** What a fault run leaves to judge: the history, each node's final users and outbox, what each stream reader received. */
export interface RunRecord {
  history: Op[];
  nodes: MarkedUser[][];
  outboxes: OutboxEvent[][];
  readers: ReaderEvents[];
}

export const CHECKERS = ['durability', 'exactly-once', 'linearizability', 'lost-update', 'events', 'causal'] as const;

export interface Verdict {
  anomalies: Anomaly[];
  /** Users whose linearizability search ran out of budget: neither proven nor refuted. */
  undecided: number[];
}

/** Every checker over one run. */
export function checkRun(record: RunRecord): Verdict {
  const history = attributeUnknownCreates(record.history, record.nodes);
  const states: NodeState[] = record.nodes.map((users) => new Map(users.map((user) => [user.id, { name: user.name, email: user.email }])));
  const linearizability = checkLinearizability(history);
  return {
    anomalies: [
      ...checkDurability(history, states),
      ...checkExactlyOnce(history, record.nodes),
      ...linearizability.anomalies,
      ...checkLostUpdates(history),
      ...checkEvents(history, record.outboxes, record.readers),
      ...checkCausalReads(history),
    ],
    undecided: linearizability.undecided,
  };
}
