import type { GaleraNode } from '../../helpers/galera/galera-node.js';
import { isSuccess, type SentChange } from './event-load.js';
import type { StoredEvent } from '../../../src/events/event-log.js';
import { EXPANDED_BATCHES } from '../../events/support/numbered.js';

/** An event as a node holds it, in the service's own shape (created_at to the second, as users stores it). */
export type EventRow = StoredEvent;

interface UserRow {
  id: number;
  name: string;
  email: string;
  created_at: string | null;
}

const SECONDS = "'%Y-%m-%d %H:%i:%s'";
/** users.created_at in UTC, as the service reads it (and writes it into events), whatever the node's time zone. */
const CREATED_UTC = "CONVERT_TZ(created_at, @@session.time_zone, '+00:00')";

/** The outbox as this node holds it, by id, once it applied every write the cluster committed before. */
export async function eventsOn(node: GaleraNode, database: string): Promise<EventRow[]> {
  const rows = await node.query<EventRow[]>(
    `SELECT id, type, user_id, name, email, created_at, request_id, occurred_at FROM (${EXPANDED_BATCHES.replace('FROM event_batches', `FROM \`${database}\`.event_batches`)}) e ORDER BY id`,
    [],
    { causal: true },
  );
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** Resolves once this node holds no event still without its id (numbered right after its change commits). */
export async function numberedOn(node: GaleraNode, database: string, timeoutMs = 30_000): Promise<void> {
  const giveUpAt = performance.now() + timeoutMs;
  for (;;) {
    const rows = await node.query<Array<{ n: number }>>(`SELECT COUNT(*) AS n FROM \`${database}\`.event_batches WHERE last_id IS NULL`, [], { causal: true });
    if (Number(rows[0]?.n) === 0) return;
    if (performance.now() > giveUpAt) throw new Error(`${node.name} still holds ${rows[0]?.n} batches of events without ids`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The last event id handed out, from event_sequence. */
export async function lastIdOn(node: GaleraNode, database: string): Promise<number> {
  const rows = await node.query<Array<{ last_id: number }>>(`SELECT last_id FROM \`${database}\`.event_sequence WHERE id = 1`, [], { causal: true });
  return Number(rows[0]?.last_id ?? 0);
}

async function usersOn(node: GaleraNode, database: string): Promise<UserRow[]> {
  return node.query<UserRow[]>(`SELECT id, name, email, DATE_FORMAT(${CREATED_UTC}, ${SECONDS}) AS created_at FROM \`${database}\`.users ORDER BY id`, [], {
    causal: true,
  });
}

export interface OutboxVerdict {
  /** Every broken rule, one line each; empty when the outbox is what the load's answers promise. */
  problems: string[];
  /** Requests answered 500 (or not at all) whose change was committed all the same, with its event. */
  hiddenCommits: SentChange[];
  /** Events written by a statement that recorded several changes at once (one occurred_at), by type. */
  shared: Record<string, number>;
  events: number;
}

/**
 * The outbox and the users table of `node` judged against the load's requests (`untouched`: the
 * seeded users, which no request changes):
 * - ids are distinct, and run from 1 to event_sequence's last id without a gap;
 * - each request has at most one event, and every event names a request of the load;
 * - every acknowledged (2xx) request has exactly one event, with its type, user and fields;
 * - replaying the events in id order gives exactly the users table: no change without its event,
 *   no event without its change (an unacknowledged request's event included).
 */
export async function judgeOutbox(node: GaleraNode, database: string, sent: readonly SentChange[], untouched: ReadonlySet<number>): Promise<OutboxVerdict> {
  const [events, users, lastId] = [await eventsOn(node, database), await usersOn(node, database), await lastIdOn(node, database)];
  const problems: string[] = [];
  const ids = events.map((event) => event.id);
  const expectedIds = Array.from({ length: lastId }, (_, i) => i + 1);
  if (ids.join() !== expectedIds.join()) problems.push(`ids are not 1..${lastId} in order: ${ids.length} rows, first gaps or repeats near ${firstMismatch(ids, expectedIds)}`);

  const requests = new Map(sent.map((change) => [change.requestId, change]));
  const byRequest = new Map<string, EventRow[]>();
  for (const event of events) {
    const change = event.request_id === null ? undefined : requests.get(event.request_id);
    if (!change) {
      problems.push(`event ${event.id} names no request of the load: ${JSON.stringify(event)}`);
      continue;
    }
    byRequest.set(change.requestId, [...(byRequest.get(change.requestId) ?? []), event]);
    const wrong = mismatch(change, event);
    if (wrong) problems.push(`event ${event.id} of ${change.requestId} (${change.status}) ${wrong}`);
  }
  const hiddenCommits: SentChange[] = [];
  for (const change of sent) {
    const found = byRequest.get(change.requestId) ?? [];
    if (found.length > 1) problems.push(`${change.requestId} has ${found.length} events: ${found.map((event) => event.id).join(', ')}`);
    if (isSuccess(change.status) && found.length === 0) problems.push(`acknowledged ${change.requestId} (${change.type} of user ${change.userId}) has no event`);
    if (!isSuccess(change.status) && found.length > 0) hiddenCommits.push(change);
  }

  problems.push(...replayProblems(events, users, untouched));
  return { problems, hiddenCommits, shared: sharedStatements(events), events: events.length };
}

/** How many events of each type were written with others by one statement: those share their occurred_at (NOW(6) of the statement). */
function sharedStatements(events: readonly EventRow[]): Record<string, number> {
  const sizes = new Map<string, number>();
  for (const event of events) sizes.set(`${event.occurred_at} ${event.type}`, (sizes.get(`${event.occurred_at} ${event.type}`) ?? 0) + 1);
  const shared: Record<string, number> = {};
  for (const event of events) if (sizes.get(`${event.occurred_at} ${event.type}`)! > 1) shared[event.type] = (shared[event.type] ?? 0) + 1;
  return shared;
}

/** What in the event differs from the request it names, or undefined. */
function mismatch(change: SentChange, event: EventRow): string | undefined {
  if (event.type !== change.type) return `is ${event.type}, not ${change.type}`;
  if (change.userId !== undefined && event.user_id !== change.userId) return `is of user ${event.user_id}, not ${change.userId}`;
  if (event.name !== change.name || event.email !== change.email) return `holds ${event.name} <${event.email}>, not ${change.name} <${change.email}>`;
  return undefined;
}

/** Replays the events in id order, each user's from its creation, and compares the result with the table. */
function replayProblems(events: readonly EventRow[], users: readonly UserRow[], untouched: ReadonlySet<number>): string[] {
  const problems: string[] = [];
  const state = new Map<number, UserRow | 'deleted'>();
  for (const event of events) {
    const before = state.get(event.user_id);
    if (untouched.has(event.user_id)) problems.push(`event ${event.id} changes seeded user ${event.user_id}`);
    else if (event.type === 'user.created' && before !== undefined) problems.push(`event ${event.id} creates user ${event.user_id} again`);
    else if (event.type !== 'user.created' && (before === undefined || before === 'deleted')) problems.push(`event ${event.id} (${event.type}) of user ${event.user_id}, who does not exist then`);
    state.set(event.user_id, event.type === 'user.deleted' ? 'deleted' : { id: event.user_id, name: event.name!, email: event.email!, created_at: event.created_at });
  }
  const stored = new Map(users.map((user) => [user.id, user]));
  for (const user of users) {
    if (untouched.has(user.id)) continue;
    const replayed = state.get(user.id);
    if (replayed === undefined || replayed === 'deleted') problems.push(`user ${user.id} (${user.email}) is stored, but its events say ${replayed ?? 'nothing'}`);
    else if (JSON.stringify(replayed) !== JSON.stringify(user)) problems.push(`user ${user.id} is stored as ${JSON.stringify(user)}, its last event says ${JSON.stringify(replayed)}`);
  }
  for (const [id, replayed] of state) if (replayed !== 'deleted' && !stored.has(id)) problems.push(`user ${id} is missing, though no event deleted it`);
  return problems;
}

function firstMismatch(ids: number[], expected: number[]): string {
  const at = ids.findIndex((id, i) => id !== expected[i]);
  const i = at < 0 ? ids.length : at;
  return `position ${i}: ${ids.slice(Math.max(0, i - 2), i + 3).join(', ')}`;
}
