import type { CountSums } from '../../db/limit-counts.js';
import { setNewest } from '../newest-last.js';

/** One key's standing at this instance, in the window its counts belong to. */
export interface Entry {
  /** The window (ms since the epoch it began; 0 for a sliding count). */
  windowStart: number;
  /** What this instance spent of the allowance: requests admitted, or wrong passwords counted. */
  used: number;
  /** What this instance may spend: `used` may grow up to it without asking anyone. */
  claim: number;
  /** The other instances' claims and spending, as the last sync read them. */
  othersClaim: number;
  othersUsed: number;
  /** How many instances held a claim on the key at the last sync (this one included). */
  counting: number;
  /** This instance's place among them (0 for the lowest id), so that a remainder goes to some, not all. */
  rank: number;
  /** When this instance first counted the key in this window (ms). */
  firstSeen: number;
  /** Spent or asked for since the last sync: published at the next. */
  dirty: boolean;
  /** Refused for want of a claim since the last sync: the next sync asks for more. */
  wanting: boolean;
  /** The claim and the spending as published by the last sync. */
  sent: number;
  sentUsed: number;
}

/** What the sync publishes for one key: this instance's own row. */
export interface OwnRow {
  name: string;
  windowStart: number;
  used: number;
  claim: number;
}

/** The instances sharing the database, as the last sync saw them; `synced` false until a sync answered (or while they fail). */
export interface Peers {
  live: number;
  rank: number;
  synced: boolean;
}

/** `total` split among `ways` instances, the one at `rank` getting its part: the remainder goes one each to the lowest ranks. */
export function split(total: number, ways: number, rank: number): number {
  if (total <= 0) return 0;
  const n = Math.max(1, ways);
  return Math.floor(total / n) + (rank % n < total % n ? 1 : 0);
}

/**
 * One limit's allowance per key, shared by every instance on the database by claims: an instance
 * spends only what it claimed, and publishes both figures at each sync (src/limits/shared/limit-sync.ts).
 * - The first time it meets a key it claims its part of the whole allowance, split among the live
 *   instances, so that instances meeting one client at once cannot together exceed the limit.
 * - Once its claim is spent it refuses, and the next sync asks for its part of what nobody claimed
 *   (split among the instances that hold claims on the key), so a client served by one instance still
 *   gets the whole allowance, a sync later. For two sync intervals after it first met the key it also
 *   keeps back the first claims of live instances not seen holding one yet: they may have made one
 *   that is not published.
 * - While another instance has spent its whole claim, unspent claims are given back (down to what
 *   was spent), so that the allowance follows the client to the instances it now reaches.
 * Before the first sync answers, and while syncs fail, the instance is alone: it may claim the whole
 * allowance less what others were last seen holding. Never unlimited, never nothing.
 */
export class ClaimLedger {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly limit: number,
    private readonly syncMs: number,
    private readonly maxTracked: number,
    private readonly peers: () => Peers,
  ) {}

  /** The key's entry for the window, begun afresh when the window changed. */
  entry(key: string, windowStart: number, now: number): Entry {
    let entry = this.entries.get(key);
    if (entry === undefined || entry.windowStart !== windowStart) {
      const peers = this.peers();
      entry = {
        windowStart,
        used: 0,
        claim: peers.synced ? split(this.limit, peers.live, peers.rank) : this.limit,
        othersClaim: 0,
        othersUsed: 0,
        counting: 1,
        rank: 0,
        firstSeen: now,
        dirty: true,
        wanting: false,
        sent: 0,
        sentUsed: 0,
      };
      // Newest last, so the key met longest ago is the first forgotten.
      setNewest(this.entries, key, entry, this.maxTracked);
    }
    return entry;
  }

  /** Spends one of the key's claim: false when none is left here (the next sync asks for more). */
  spend(entry: Entry): boolean {
    entry.dirty = true;
    if (entry.used < entry.claim) {
      entry.used++;
      return true;
    }
    entry.wanting = true;
    return false;
  }

  /** Whether every instance together has claimed the whole allowance, as far as this one knows: more is not coming this window. */
  exhausted(entry: Entry): boolean {
    return entry.othersClaim + entry.claim >= this.limit && entry.used >= entry.claim;
  }

  /** The rows to publish: every key spent or asked for since the last sync (of windows `current` accepts). */
  pending(current: (entry: Entry, key: string) => boolean): OwnRow[] {
    const rows: OwnRow[] = [];
    for (const [key, entry] of this.entries) {
      if (!entry.dirty || !current(entry, key)) continue;
      entry.sent = entry.claim;
      entry.sentUsed = entry.used;
      entry.dirty = false;
      rows.push({ name: key, windowStart: entry.windowStart, used: entry.used, claim: entry.claim });
    }
    return rows;
  }

  /** A sync that failed: its rows are published with the next. */
  unsent(rows: ReadonlyArray<Pick<OwnRow, 'name' | 'windowStart'>>): void {
    for (const row of rows) {
      const entry = this.entries.get(row.name);
      if (entry !== undefined && entry.windowStart === row.windowStart) entry.dirty = true;
    }
  }

  /** What a sync read back for a key: the others' figures, and this instance's next claim. */
  learn(sums: CountSums, now: number): Entry | undefined {
    const entry = this.entries.get(sums.name);
    if (entry === undefined || entry.windowStart !== sums.windowStart) return undefined;
    entry.othersClaim = Math.max(0, sums.claim - entry.sent);
    entry.othersUsed = Math.max(0, sums.used - entry.sentUsed);
    entry.counting = Math.max(1, sums.counting);
    entry.rank = sums.rank;
    const peers = this.peers();
    const young = now - entry.firstSeen < 2 * this.syncMs;
    const unseen = young ? Math.max(0, peers.live - entry.counting) * split(this.limit, peers.live, 0) : 0;
    const unclaimed = this.limit - entry.othersClaim - unseen - entry.claim;
    if (entry.wanting && unclaimed > 0) entry.claim += split(unclaimed, entry.counting, entry.rank);
    else if (!entry.wanting && sums.othersFull > 0 && entry.claim > entry.used) {
      entry.claim = entry.used;
      entry.dirty = true;
    }
    // Others claimed past the limit meanwhile (a sync racing this one): keep what was spent, claim no more.
    if (entry.othersClaim + entry.claim > this.limit) entry.claim = Math.max(entry.used, this.limit - entry.othersClaim);
    entry.wanting = false;
    return entry;
  }

  /** While syncs fail: what was wanted is granted from the whole allowance less what others were last seen claiming. */
  alone(): void {
    for (const entry of this.entries.values()) {
      if (!entry.wanting) continue;
      entry.claim = Math.max(entry.claim, this.limit - entry.othersClaim);
      entry.wanting = false;
    }
  }

  get tracked(): number {
    return this.entries.size;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }
}
