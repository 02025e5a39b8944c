import type { CountRow, CountSums } from '../../db/limit-counts.js';

/** A limit whose counts a LimitSync publishes and reads back; `name` is the key without the source's prefix. */
export interface SyncSource {
  /** Names this source's rows in the table (`r:` requests, `g:` wrong passwords). */
  readonly prefix: string;
  /** This instance's rows changed since the last sync. */
  rows(now: number): CountRow[];
  /** What a sync read back for one of them. */
  learn(sums: CountSums, now: number): void;
  /** The sync failed: these rows go with the next one. */
  unsent(rows: readonly CountRow[]): void;
  /** Syncs are failing: decide on this instance's own counts. */
  alone(): void;
}
