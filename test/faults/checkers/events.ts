import type { Anomaly, Op } from './history.js';

const CHECKER = 'events';

/** An event as the outbox holds it (one entry of event_batches' arrays, or a user_events row), numbered. */
export interface OutboxEvent {
  id: number;
  type: string;
  user_id: number;
  request_id: string | null;
}

/** A stream reader's events, in the order received. */
export type ReaderEvents = OutboxEvent[];

const EXPECTED_TYPE: Partial<Record<Op['kind'], string>> = { create: 'user.created', put: 'user.updated', 'cas-put': 'user.updated', 'cas-patch': 'user.updated', delete: 'user.deleted' };

/**
 * Exactly one event for every acknowledged change, none for a change that definitely failed (at
 * most one for an unknown outcome), none for a read; every node's outbox the same; every reader
 * receiving the outbox's events in id order, without a gap between the first and last it received.
 */
export function checkEvents(history: Op[], outboxes: OutboxEvent[][], readers: ReaderEvents[]): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const outbox = outboxes[0] ?? [];
  outboxes.forEach((other, index) => {
    if (index > 0 && !sameEvents(outbox, other)) anomalies.push({ checker: CHECKER, message: `node ${index + 1}'s outbox differs from node 1's (${other.length} against ${outbox.length} events)` });
  });
  const byRequest = new Map<string, OutboxEvent[]>();
  for (const event of outbox) if (event.request_id !== null) byRequest.set(event.request_id, [...(byRequest.get(event.request_id) ?? []), event]);
  for (const op of history) {
    const events = byRequest.get(op.requestId) ?? [];
    const expected = EXPECTED_TYPE[op.kind];
    const allowed = expected === undefined || op.outcome === 'failed' ? 0 : 1;
    const required = expected !== undefined && op.outcome === 'ok' ? 1 : 0;
    if (events.length > allowed || events.length < required) {
      anomalies.push({ checker: CHECKER, message: `${op.kind} #${op.id} (${op.outcome}, ${op.status ?? 'no answer'}) has ${events.length} events`, ops: [op.id] });
    } else if (events.length === 1 && events[0]!.type !== expected) {
      anomalies.push({ checker: CHECKER, message: `${op.kind} #${op.id} has a ${events[0]!.type} event`, ops: [op.id] });
    }
  }
  readers.forEach((received, index) => anomalies.push(...checkReader(received, outbox, index + 1)));
  return anomalies;
}

function checkReader(received: ReaderEvents, outbox: OutboxEvent[], reader: number): Anomaly[] {
  if (received.length === 0) return [];
  const anomalies: Anomaly[] = [];
  const first = received[0]!.id;
  const last = received.at(-1)!.id;
  const expected = outbox.filter((event) => event.id >= first && event.id <= last);
  if (!sameEvents(expected, received)) {
    const order = received.every((event, i) => i === 0 || event.id > received[i - 1]!.id) ? 'with a gap or a different event' : 'out of order';
    anomalies.push({ checker: CHECKER, message: `reader ${reader} received events ${first}-${last} ${order}: ${received.length} events where the outbox has ${expected.length}` });
  }
  return anomalies;
}

function sameEvents(a: OutboxEvent[], b: OutboxEvent[]): boolean {
  return a.length === b.length && a.every((event, i) => event.id === b[i]!.id && event.type === b[i]!.type && event.user_id === b[i]!.user_id && event.request_id === b[i]!.request_id);
}
