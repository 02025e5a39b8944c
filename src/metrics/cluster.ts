import cluster, { type Worker } from 'node:cluster';
import { mergeSnapshots, type Registry, type Snapshot } from './registry.js';
import { WorkerFigures } from './worker-figures.js';
import { tellWorker } from '../ipc/tell-worker.js';

/**
 * Metrics across node:cluster workers. The primary keeps every worker's latest snapshot, refreshed
 * when it collects (it asks every worker over IPC) and every second in between (each worker sends
 * its own), and keeps the counts of workers that died (see worker-figures.ts); a worker that
 * serves `/metrics` asks the primary for the merge.
 *
 * Wiring: in the primary, `serveWorkers()` once, before any worker starts; in each worker,
 * `answerPrimary(registry)` and `/metrics` reading `askPrimary()`. A primary that serves
 * METRICS_PORT itself reads `collectFromWorkers()`.
 */

interface SnapshotRequest {
  type: 'metrics:snapshot?' | 'metrics:collect?';
  id: number;
}

interface SnapshotAnswer {
  type: 'metrics:snapshot' | 'metrics:collected';
  id: number;
  snapshot: Snapshot;
}

/** A worker's own figures, sent unasked; `seq` orders them, so that an older one never replaces a newer. */
interface WorkerSnapshot {
  type: 'metrics:snapshot' | 'metrics:push';
  seq: number;
  snapshot: Snapshot;
}

type Message = Partial<SnapshotRequest | SnapshotAnswer | WorkerSnapshot> | null | undefined;

/** How long the primary waits for one worker's snapshot; for one that is stuck, its latest is used. */
const WORKER_TIMEOUT_MS = 1000;
/** How long a worker waits for the primary's merge: every worker's timeout, and some. */
const PRIMARY_TIMEOUT_MS = 3000;
/** How often a worker sends its figures unasked: a worker killed outright loses at most this much of its counts. */
const PUSH_INTERVAL_MS = 1000;

let nextId = 1;
const figures = new WorkerFigures();
/** The primary's own figures (the shared limits' sync), merged with the workers'. */
let primaryOwn: Registry | undefined;

/** In a worker: answers the primary's requests for this worker's figures, and sends them every second. */
export function answerPrimary(registry: Registry): void {
  let taken = 0;
  const send = (type: WorkerSnapshot['type'], id?: number): void => {
    const seq = ++taken;
    void registry.snapshot().then((snapshot) => {
      // A worker draining after its primary died has no one to tell (and send would throw).
      if (process.connected) process.send?.({ type, seq, snapshot, ...(id === undefined ? {} : { id }) });
    });
  };
  process.on('message', (message: Message) => {
    if (message?.type === 'metrics:snapshot?' && typeof message.id === 'number') send('metrics:snapshot', message.id);
  });
  setInterval(() => send('metrics:push'), PUSH_INTERVAL_MS).unref();
}

/** In the primary: the whole service's figures, every living worker's asked afresh, and the counts of those gone. */
export async function collectFromWorkers(): Promise<Snapshot> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker?.isConnected() === true);
  await Promise.all(workers.map((worker) => ask(worker, 'metrics:snapshot?', 'metrics:snapshot', WORKER_TIMEOUT_MS)));
  return primaryOwn ? mergeSnapshots([figures.merged(), await primaryOwn.snapshot()]) : figures.merged();
}

/** In the primary: keeps the workers' figures as they come, and lets workers ask for the whole service's (with `own`, the primary's, added). */
export function serveWorkers(own?: Registry): void {
  primaryOwn = own;
  cluster.on('message', (worker: Worker, message: Message) => {
    if (message?.type === 'metrics:snapshot' || message?.type === 'metrics:push') {
      const { seq, snapshot } = message as Partial<WorkerSnapshot>;
      if (typeof seq === 'number' && Array.isArray(snapshot)) figures.record(worker.id, seq, snapshot);
    } else if (message?.type === 'metrics:collect?' && typeof message.id === 'number') {
      const { id } = message;
      void collectFromWorkers().then((snapshot) => {
        tellWorker(worker, { type: 'metrics:collected', id, snapshot } satisfies SnapshotAnswer);
      });
    }
  });
  // Every message of a worker arrives before its 'disconnect': what it last sent is its last word.
  cluster.on('disconnect', (worker) => figures.retire(worker.id));
}

/** In a worker: the whole service's figures, merged by the primary. */
export function askPrimary(): Promise<Snapshot> {
  return ask(process, 'metrics:collect?', 'metrics:collected', PRIMARY_TIMEOUT_MS).then((snapshot) => {
    if (snapshot.length === 0) throw new Error('the primary did not send the metrics in time');
    return snapshot;
  });
}

interface Channel {
  send?(message: SnapshotRequest): unknown;
  on(event: 'message', listener: (message: Message) => void): unknown;
  off(event: 'message', listener: (message: Message) => void): unknown;
}

/** One request over an IPC channel, answered by the message with the same id; empty after the timeout. */
function ask(channel: Channel, request: SnapshotRequest['type'], answer: SnapshotAnswer['type'], timeoutMs: number): Promise<Snapshot> {
  const id = nextId++;
  return new Promise((resolve) => {
    const done = (snapshot: Snapshot): void => {
      clearTimeout(timer);
      channel.off('message', onMessage);
      resolve(snapshot);
    };
    const onMessage = (message: Message): void => {
      if (message?.type === answer && (message as SnapshotAnswer).id === id) done((message as SnapshotAnswer).snapshot);
    };
    const timer = setTimeout(() => done([]), timeoutMs);
    channel.on('message', onMessage);
    channel.send?.({ type: request, id });
  });
}
