import cluster, { type Worker } from 'node:cluster';
import { mergeSnapshots, type Registry, type Snapshot } from './registry.js';

/**
 * Metrics across node:cluster workers. The primary asks every worker for its snapshot over IPC and
 * merges them; a worker that serves `/metrics` asks the primary for that merge.
 *
 * Wiring: in the primary, `serveWorkers()` once; in each worker, `answerPrimary(registry)` and
 * `/metrics` reading `askPrimary()`. A primary that serves METRICS_PORT itself reads
 * `collectFromWorkers()`.
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

type Message = Partial<SnapshotRequest | SnapshotAnswer> | null | undefined;

/** How long the primary waits for one worker's snapshot; a worker that is stuck or gone is left out. */
const WORKER_TIMEOUT_MS = 1000;
/** How long a worker waits for the primary's merge: every worker's timeout, and some. */
const PRIMARY_TIMEOUT_MS = 3000;

let nextId = 1;

/** In a worker: answers the primary's requests for this worker's figures. */
export function answerPrimary(registry: Registry): void {
  const onMessage = (message: Message): void => {
    if (message?.type !== 'metrics:snapshot?' || typeof message.id !== 'number') return;
    const { id } = message;
    void registry.snapshot().then((snapshot) => process.send?.({ type: 'metrics:snapshot', id, snapshot } satisfies SnapshotAnswer));
  };
  process.on('message', onMessage);
}

/** In the primary: the whole service's figures, every live worker's merged. */
export async function collectFromWorkers(): Promise<Snapshot> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker?.isConnected() === true);
  const snapshots = await Promise.all(workers.map((worker) => ask(worker, 'metrics:snapshot?', 'metrics:snapshot', WORKER_TIMEOUT_MS)));
  return mergeSnapshots(snapshots);
}

/** In the primary: lets workers ask for the whole service's figures. */
export function serveWorkers(): void {
  const onMessage = (worker: Worker, message: Message): void => {
    if (message?.type !== 'metrics:collect?' || typeof message.id !== 'number') return;
    const { id } = message;
    void collectFromWorkers().then((snapshot) => {
      if (worker.isConnected()) worker.send({ type: 'metrics:collected', id, snapshot } satisfies SnapshotAnswer);
    });
  };
  cluster.on('message', onMessage);
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
      if (message?.type === answer && message.id === id) done((message as SnapshotAnswer).snapshot);
    };
    const timer = setTimeout(() => done([]), timeoutMs);
    channel.on('message', onMessage);
    channel.send?.({ type: request, id });
  });
}
