import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CountRow, CountSums } from '../../src/db/limit-counts.js';
import { split } from '../../src/limits/shared/claim-ledger.js';
import { LimitSync, type CountExchange } from '../../src/limits/shared/limit-sync.js';
import { SharedFailures } from '../../src/limits/shared/shared-failures.js';
import { SharedRequests } from '../../src/limits/shared/shared-requests.js';
import { createLogger } from '../../src/log/logger.js';

/** The limit_counts table and its sync statement, in memory (limit-statements.ts says what they do in SQL). */
class TableInMemory implements CountExchange {
  readonly rows = new Map<string, CountRow & { instance: string }>();
  down = false;
  roundTrips = 0;

  async exchange(instance: string, rows: readonly CountRow[], now: number): Promise<CountSums[]> {
    this.roundTrips++;
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:3306');
    for (const row of rows) this.rows.set(`${row.name}|${row.windowStart}|${instance}`, { ...row, instance });
    const names = new Set(rows.map((row) => row.name));
    const sums = new Map<string, CountSums>();
    for (const row of this.rows.values()) {
      if (!names.has(row.name) || row.expiresAt <= now) continue;
      const key = `${row.name}|${row.windowStart}`;
      const sum = sums.get(key) ?? { name: row.name, windowStart: row.windowStart, used: 0, claim: 0, counting: 0, rank: 0, othersFull: 0, blockedUntil: 0 };
      sum.used += row.used;
      sum.claim += row.claim;
      sum.counting++;
      if (row.instance < instance) sum.rank++;
      if (row.instance !== instance && row.claim > 0 && row.used >= row.claim) sum.othersFull++;
      sum.blockedUntil = Math.max(sum.blockedUntil, row.blockedUntil);
      sums.set(key, sum);
    }
    return [...sums.values()];
  }
}

const quiet = createLogger(() => {});
const SYNC_MS = 500;

function instances(count: number, table: TableInMemory, limit: number, windowSeconds: number) {
  return Array.from({ length: count }, () => {
    let sync: LimitSync | undefined;
    const requests = new SharedRequests({ requests: limit, windowSeconds }, SYNC_MS, () => sync!.view());
    const failures = new SharedFailures({ maxFailures: limit, windowSeconds }, SYNC_MS, () => sync!.view());
    sync = new LimitSync(table, [requests, failures], SYNC_MS, quiet);
    return { requests, failures, sync };
  });
}

/** Time runs in steps of 1 ms; instance i syncs every SYNC_MS, offset by i * SYNC_MS / count, as timers started apart do. */
async function flood(count: number, limit: number, windowSeconds: number, seconds: number, perMs: number, route: (n: number) => number) {
  const table = new TableInMemory();
  const all = instances(count, table, limit, windowSeconds);
  const start = 1_000_000_000_000;
  for (let round = 2; round > 0; round--) for (const [i, { sync }] of all.entries()) await sync.sync(start - round * SYNC_MS + i);
  const admitted = new Map<number, number>();
  let sent = 0;
  for (let ms = 0; ms < seconds * 1000; ms++) {
    const now = start + ms;
    for (let r = 0; r < perMs; r++) {
      const [remaining] = all[route(sent++)]!.requests.take('ip:198.51.100.7', now);
      const window = Math.floor(now / (windowSeconds * 1000));
      if (remaining >= 0) admitted.set(window, (admitted.get(window) ?? 0) + 1);
    }
    for (const [i, { sync }] of all.entries()) if ((ms + Math.floor((i * SYNC_MS) / count)) % SYNC_MS === 0) await sync.sync(now);
  }
  return { admitted: [...admitted.values()], table };
}

describe('split: a total shared among instances, the remainder one each to the lowest ranks', () => {
  test('10 among 3 -> 4, 3, 3; the parts add up to the total', () => {
    assert.deepEqual([0, 1, 2].map((rank) => split(10, 3, rank)), [4, 3, 3]);
    assert.equal([0, 1, 2, 3, 4, 5, 6].reduce((sum, rank) => sum + split(300, 7, rank), 0), 300);
  });

  test('nothing left -> nothing for anyone', () => {
    assert.equal(split(0, 3, 0), 0);
    assert.equal(split(-5, 3, 0), 0);
  });
});

describe('SharedRequests: three instances on one table admit about the limit per window, whatever the spread', () => {
  test('round robin at 6 requests/ms for 30 s at 300/10s -> every window within 0.9-1.15x', async () => {
    const { admitted } = await flood(3, 300, 10, 30, 6, (n) => n % 3);
    assert.equal(admitted.length, 3);
    for (const count of admitted) assert.ok(count >= 270 && count <= 345, `admitted ${count} in a window`);
  });

  test('one client reaching a single instance still gets the whole allowance (a sync or two later)', async () => {
    const { admitted } = await flood(3, 300, 10, 20, 1, () => 0);
    for (const count of admitted) assert.ok(count >= 270 && count <= 300, `admitted ${count} in a window`);
  });

  test('a client moving between instances every second stays within 1.15x', async () => {
    const { admitted } = await flood(3, 300, 10, 30, 2, (n) => Math.floor(n / 2000) % 3);
    for (const count of admitted) assert.ok(count <= 345, `admitted ${count} in a window`);
  });

  test('syncs make one round trip each, however many requests arrive', async () => {
    const { table } = await flood(3, 300, 10, 10, 6, (n) => n % 3);
    // 3 instances x (10 s / 0.5 s) syncs, plus the three first ones; none more for 60 000 requests.
    assert.ok(table.roundTrips <= 3 * 21 + 3, `${table.roundTrips} round trips`);
  });
});

describe('SharedRequests: the answers it gives', () => {
  test('windows are aligned to the clock: a take at 12.3 s of a 10 s window resets at 20 s', () => {
    const requests = new SharedRequests({ requests: 5, windowSeconds: 10 }, SYNC_MS, () => ({ live: 1, rank: 0, synced: false }));
    assert.deepEqual(requests.take('k', 12_300), [4, 20_000]);
  });

  test('with its claim spent and room left elsewhere, the refusal asks to retry after the next sync, not the window end', () => {
    const requests = new SharedRequests({ requests: 6, windowSeconds: 10 }, SYNC_MS, () => ({ live: 3, rank: 0, synced: true }));
    assert.deepEqual(requests.take('k', 10_000), [5, 20_000]);
    assert.deepEqual(requests.take('k', 10_001), [4, 20_000]);
    assert.deepEqual(requests.take('k', 10_002), [-1, 10_502]);
  });

  test('before any sync answered (or while they fail) it is alone: the whole allowance, never more', () => {
    const requests = new SharedRequests({ requests: 3, windowSeconds: 10 }, SYNC_MS, () => ({ live: 3, rank: 0, synced: false }));
    const answers = Array.from({ length: 5 }, () => requests.take('k', 0)[0]);
    assert.deepEqual(answers, [2, 1, 0, -1, -1]);
  });
});

describe('SharedFailures: wrong passwords counted for every instance', () => {
  test('AUTH_MAX_FAILURES=10 spread over three instances -> at most 10 compared, then blocked everywhere within a sync', async () => {
    const table = new TableInMemory();
    const all = instances(3, table, 10, 60);
    const start = 2_000_000_000_000;
    for (let round = 2; round > 0; round--) for (const [i, { sync }] of all.entries()) await sync.sync(start - round * SYNC_MS + i);
    let compared = 0;
    for (let n = 0; n < 300; n++) {
      const now = start + n * 10;
      const { failures } = all[n % 3]!;
      if (failures.blockedForMs('203.0.113.9', now) === 0) {
        compared++;
        failures.recordFailure('203.0.113.9', now);
      }
      if (n % 50 === 0) for (const { sync } of all) await sync.sync(now);
    }
    assert.ok(compared <= 12, `${compared} passwords compared`);
    assert.ok(compared >= 10, `${compared} passwords compared`);
    for (const { failures } of all) assert.ok(failures.blockedForMs('203.0.113.9', start + 3000) > 50_000);
  });

  test('a block made on one instance reaches another at its next sync', async () => {
    const table = new TableInMemory();
    const [a, b] = instances(2, table, 3, 60);
    await a!.sync.sync(0);
    await b!.sync.sync(1);
    for (let i = 0; i < 3; i++) a!.failures.recordFailure('198.51.100.1', 10 + i);
    assert.ok(a!.failures.blockedForMs('198.51.100.1', 20) > 0);
    b!.failures.recordFailure('198.51.100.1', 15);
    await a!.sync.sync(500);
    await b!.sync.sync(501);
    assert.ok(b!.failures.blockedForMs('198.51.100.1', 600) > 50_000);
  });
});

describe('LimitSync: while the database is away the limits keep working alone', () => {
  test('a failed sync warns once, keeps counting locally (never unlimited), and says when shared again', async () => {
    const table = new TableInMemory();
    const lines: string[] = [];
    let sync: LimitSync | undefined;
    const requests = new SharedRequests({ requests: 4, windowSeconds: 10 }, SYNC_MS, () => sync!.view());
    sync = new LimitSync(table, [requests], SYNC_MS, createLogger((line) => lines.push(line)));
    await sync.sync(0);
    table.down = true;
    requests.take('k', 1000);
    await sync.sync(1500);
    requests.take('k', 1600);
    await sync.sync(2000);
    const answers = Array.from({ length: 4 }, () => requests.take('k', 2100)[0]);
    assert.deepEqual(answers, [1, 0, -1, -1]);
    assert.equal(lines.filter((line) => line.includes('limits counted by this instance alone')).length, 1);
    assert.equal(sync.figures.failures, 2);
    table.down = false;
    await sync.sync(2500);
    assert.equal(lines.filter((line) => line.includes('limits shared again')).length, 1);
    const published = [...table.rows.values()].find((row) => row.name === 'r:k');
    assert.equal(published?.used, 4, 'the counts made while away are published once the database is back');
  });
});
