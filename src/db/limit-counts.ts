import { createHash } from 'node:crypto';
import type { DbConfig } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { createConnectionSource } from './connect.js';
import type { ConnectionSource } from './connection-source.js';
import { Database } from './database.js';
import { limitSyncStatement } from './limit-statements.js';
import { endPool } from './pool.js';
import type { PoolTuning } from './pool-tuning.js';

/** One of this instance's rows: a key's spending and allowance in a window (0 for a sliding count). */
export interface CountRow {
  name: string;
  windowStart: number;
  used: number;
  claim: number;
  blockedUntil: number;
  expiresAt: number;
}

/** Every instance's rows for one name and window, summed. */
export interface CountSums {
  name: string;
  windowStart: number;
  used: number;
  claim: number;
  counting: number;
  /** Instances with a lower id than this one. */
  rank: number;
  /** Other instances whose whole claim is spent. */
  othersFull: number;
  blockedUntil: number;
}

interface SumsRow {
  name: string;
  window_start: string | number;
  used: string | number;
  claim: string | number;
  counting: string | number;
  rank_below: string | number;
  others_full: string | number;
  blocked_until: string | number;
}

/** Names longer than this are stored as a digest: a client name can be long, the column is not. */
const MAX_NAME = 190;
/** Rows of others past expiry by this much belong to instances gone for good: anyone may delete them. */
const ABANDONED_MS = 10 * 60_000;
/** At most this many names per round trip. */
export const NAMES_PER_SYNC = 500;

/** How a key is stored: as it is, or a digest when too long for the column. */
export function storedName(name: string): string {
  return name.length <= MAX_NAME ? name : `#${createHash('sha256').update(name).digest('base64url')}`;
}

/**
 * The shared limits' own connection (one per instance, accepting several statements per query), and
 * the one round trip a sync makes on it: this instance's rows written, then every instance's summed.
 */
export class LimitCounts {
  private readonly pool: ConnectionSource;
  private readonly db: Database;

  constructor(config: DbConfig, tuning: PoolTuning, logger?: Logger) {
    const own: PoolTuning = { ...tuning, connectionLimit: 1, queueLimit: 10, multipleStatements: true };
    this.pool = createConnectionSource(config, own, logger);
    this.db = new Database(this.pool, tuning.operationTimeoutMs, tuning.trustAnsweredWithinMs);
  }

  /** Writes `rows` (names as given, stored per storedName) and reads the sums for their names. */
  async exchange(instance: string, rows: readonly CountRow[], now: number, pruning: boolean): Promise<CountSums[]> {
    const values: unknown[] = [];
    const byStored = new Map<string, string>();
    for (const row of rows) {
      const stored = storedName(row.name);
      byStored.set(stored, row.name);
      values.push(stored, row.windowStart, instance, row.used, row.claim, row.blockedUntil, row.expiresAt);
    }
    if (pruning) values.push(now, instance, now - ABANDONED_MS);
    if (byStored.size > 0) values.push(instance, instance, ...byStored.keys(), now);
    if (values.length === 0) return [];
    const results = await this.db.repeatable<unknown>(limitSyncStatement(rows.length, byStored.size, pruning), values);
    // One statement answers its result alone; several, an array of results with the sums last.
    const statements = (rows.length > 0 ? 1 : 0) + (pruning ? 1 : 0) + (byStored.size > 0 ? 1 : 0);
    if (byStored.size === 0) return [];
    const sums = (statements === 1 ? results : (results as unknown[])[statements - 1]) as SumsRow[];
    return sums.map((row) => ({
      name: byStored.get(row.name) ?? row.name,
      windowStart: Number(row.window_start),
      used: Number(row.used),
      claim: Number(row.claim),
      counting: Number(row.counting),
      rank: Number(row.rank_below),
      othersFull: Number(row.others_full),
      blockedUntil: Number(row.blocked_until),
    }));
  }

  close(): Promise<void> {
    return endPool(this.pool);
  }
}
