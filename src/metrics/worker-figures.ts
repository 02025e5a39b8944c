import { mergeSnapshots, type Snapshot } from './registry.js';

/**
 * The primary's memory of its workers' figures, so that the service's counters never go back when
 * a worker dies and another takes its place (Prometheus would read the drop as a reset, and its
 * `rate()` would jump): the latest snapshot of every living worker, and the counters and
 * histograms of every worker gone, added up. A gauge describes the living: a dead worker's is
 * dropped with it.
 */
export class WorkerFigures {
  private readonly latest = new Map<number, { seq: number; snapshot: Snapshot }>();
  private retired: Snapshot = [];

  /** Worker `id`'s snapshot, the `seq`-th it took: kept unless a later one is already known. */
  record(id: number, seq: number, snapshot: Snapshot): void {
    const known = this.latest.get(id);
    if (known === undefined || seq > known.seq) this.latest.set(id, { seq, snapshot });
  }

  /**
   * Worker `id` is gone: its last counts join the retired ones. Called once its IPC channel has
   * closed, when nothing more can come from it (Node delivers every message before 'disconnect').
   */
  retire(id: number): void {
    const known = this.latest.get(id);
    this.latest.delete(id);
    if (known === undefined) return;
    const counts = known.snapshot.filter((metric) => metric.type !== 'gauge');
    this.retired = mergeSnapshots([this.retired, counts]);
  }

  /** The whole service: every living worker's latest figures, and the retired counts. */
  merged(): Snapshot {
    return mergeSnapshots([...[...this.latest.values()].map((known) => known.snapshot), this.retired]);
  }
}
