import { checkRun, CHECKERS, type Verdict } from '../checkers/all.js';
import type { Op } from '../checkers/history.js';
import { runClients } from '../workload/clients.js';
import { StreamReader } from '../workload/stream-reader.js';
import { UserPool } from '../workload/user-pool.js';
import type { FaultEnvironment } from './environment.js';
import { saveEvidence } from './evidence.js';
import type { Fault } from './faults.js';
import { outboxOf, usersOf } from './final-state.js';
import { sharedLimitsRejoined } from './shared-limits-state.js';

export interface FaultResult {
  fault: string;
  operations: number;
  acknowledged: number;
  unknown: number;
  verdict: Verdict;
  /** Anomalies per checker, every checker named (0 included). */
  byChecker: Record<string, number>;
  /** What the checkers had to judge, so that a 0 can be told from nothing checked. */
  checked: { users: number; refused412: number; events: number; readerEvents: number[]; answers: Record<string, number>; limitsNotRejoined: string[] };
  /** When the fault began and was healed, and the first and last unknown outcome, in ms after the fault began. */
  timeline: { healedAt: number; firstUnknown?: number; lastUnknown?: number };
}

export interface RunOptions {
  /** How long the fault lasts (each step of it). */
  seconds: number;
  clients: number;
  /** Workload before the fault and after it healed. */
  calmSeconds: number;
  random: () => number;
  log: (line: string) => void;
}

const sleep = (seconds: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/**
 * One fault under the workload: clients and a stream reader per instance start, the fault is made
 * and healed, a quiet period follows, then the clients stop and every checker judges the history
 * against every node's final users and outbox. Users and request ids carry a tag of their own, so
 * faults run one after another on one cluster do not see each other's operations.
 */
export async function runFault(env: FaultEnvironment, fault: Fault, tag: string, options: RunOptions): Promise<FaultResult> {
  const history: Op[] = [];
  const started = Date.now();
  const ctx = { tag, instances: env.services.map((service) => service.baseUrl), pool: new UserPool(), history, clock: () => Date.now() - started, random: options.random };
  const readers = env.services.map((service) => new StreamReader(service.baseUrl));
  let stopClients!: () => void;
  let faultAt = 0;
  let healedAt = 0;
  const clients = runClients(ctx, options.clients, new Promise<void>((resolve) => (stopClients = resolve)));
  try {
    await sleep(options.calmSeconds);
    options.log(`#   ${fault.name}: ${fault.describe}`);
    faultAt = ctx.clock();
    await fault.inflict(env, options.seconds, options.log);
    healedAt = ctx.clock();
    await sleep(options.calmSeconds);
  } finally {
    stopClients();
    await clients;
  }
  const limitsNotRejoined = await sharedLimitsRejoined(ctx.instances);
  const outboxes = await Promise.all(env.cluster.nodes.map((node) => outboxOf(node, env.database)));
  await untilReadersCaughtUp(readers, outboxes[0]!.at(-1)?.id ?? 0);
  await Promise.all(readers.map((reader) => reader.stop()));
  const nodes = await Promise.all(env.cluster.nodes.map((node) => usersOf(node, env.database, tag)));
  const record = { history, nodes, outboxes, readers: readers.map((reader) => reader.received) };
  const verdict = checkRun(record);
  if (verdict.anomalies.length > 0) options.log(`#   the record of ${fault.name}: ${saveEvidence(fault.name, tag, record, verdict)}`);
  const byChecker = Object.fromEntries(CHECKERS.map((name) => [name, verdict.anomalies.filter((anomaly) => anomaly.checker === name).length]));
  return {
    fault: fault.name,
    operations: history.length,
    acknowledged: history.filter((op) => op.outcome === 'ok').length,
    unknown: history.filter((op) => op.outcome === 'unknown').length,
    verdict,
    byChecker,
    checked: {
      users: new Set(history.filter((op) => op.kind === 'create' && op.outcome === 'ok').map((op) => op.userId)).size,
      refused412: history.filter((op) => op.status === 412).length,
      events: outboxes[0]!.filter((event) => event.request_id?.startsWith(`${tag}-`)).length,
      readerEvents: readers.map((reader) => reader.received.length),
      answers: countAnswers(history),
      limitsNotRejoined,
    },
    timeline: timelineOf(history, faultAt, healedAt),
  };
}

/** Waits (bounded) until each reader received the last event written: the stream may trail the outbox by a moment. */
async function untilReadersCaughtUp(readers: StreamReader[], lastId: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && readers.some((reader) => (reader.received.at(-1)?.id ?? lastId) < lastId)) await sleep(0.2);
}

/** How many answers of each status the clients got (`none`: no answer). */
function countAnswers(history: Op[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const op of history) {
    const key = op.status === undefined ? 'none' : String(op.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

function timelineOf(history: Op[], faultAt: number, healedAt: number): FaultResult['timeline'] {
  const unknown = history.filter((op) => op.outcome === 'unknown').map((op) => (op.answered ?? op.sent) - faultAt);
  return { healedAt: healedAt - faultAt, firstUnknown: unknown.length > 0 ? Math.min(...unknown) : undefined, lastUnknown: unknown.length > 0 ? Math.max(...unknown) : undefined };
}
