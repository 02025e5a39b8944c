import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LimitCounts, storedName } from '../../src/db/limit-counts.js';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { createLogger } from '../../src/log/logger.js';
import { ensureSchema } from '../../src/startup/schema.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** The shared limits' one round trip (db/limit-statements.ts) on a real server. */
describe('LimitCounts on MariaDB: each instance writes its own rows, and reads everyone\'s summed', () => {
  let db: TestDatabase;
  let counts: LimitCounts;
  before(async () => {
    db = await createTestDatabase('limit_counts');
    await ensureSchema(db.config, { logger: createLogger(() => {}), uniqueEmail: false, sharedLimits: true });
    counts = new LimitCounts(db.config, defaultTuning);
  });
  after(async () => {
    await counts.close();
    await db.drop();
  });

  const row = (name: string, used: number, claim: number, extra: { blockedUntil?: number; expiresAt?: number } = {}) => ({
    name,
    windowStart: 10_000,
    used,
    claim,
    blockedUntil: extra.blockedUntil ?? 0,
    expiresAt: extra.expiresAt ?? 20_000,
  });

  test('the sums add every instance\'s row; rank counts lower ids; others_full counts other instances with their claim spent', async () => {
    await counts.exchange('a'.repeat(32), [row('r:ip:1', 100, 100)], 11_000, false);
    await counts.exchange('c'.repeat(32), [row('r:ip:1', 20, 100)], 11_000, false);
    const [sums] = await counts.exchange('b'.repeat(32), [row('r:ip:1', 50, 100)], 11_000, false);
    assert.deepEqual(sums, { name: 'r:ip:1', windowStart: 10_000, used: 170, claim: 300, counting: 3, rank: 1, othersFull: 1, blockedUntil: 0 });
  });

  test('writing again replaces an instance\'s own row (absolute values: a repeated sync changes nothing)', async () => {
    await counts.exchange('a'.repeat(32), [row('r:ip:2', 5, 10)], 11_000, false);
    const [again] = await counts.exchange('a'.repeat(32), [row('r:ip:2', 7, 10, { blockedUntil: 99_000 })], 11_000, false);
    assert.equal(again?.used, 7);
    assert.equal(again?.counting, 1);
    assert.equal(again?.blockedUntil, 99_000);
  });

  test('expired rows are left out of the sums, and pruned: their writer\'s at once, others\' once abandoned', async () => {
    await counts.exchange('d'.repeat(32), [row('g:198.51.100.4', 3, 3, { expiresAt: 12_000 })], 11_000, false);
    await counts.exchange('e'.repeat(32), [row('g:198.51.100.4', 1, 3, { expiresAt: 15_000 })], 11_000, false);
    const [later] = await counts.exchange('e'.repeat(32), [row('g:198.51.100.4', 1, 3, { expiresAt: 15_000 })], 13_000, true);
    assert.equal(later?.counting, 1, 'the expired row is not summed');
    const kept = await db.query<Array<{ instance: string }>>("SELECT instance FROM limit_counts WHERE name = 'g:198.51.100.4'");
    assert.equal(kept.length, 2, 'another instance\'s row is kept until abandoned');
    await counts.exchange('e'.repeat(32), [], 12_000 + 11 * 60_000, true);
    const left = await db.query<Array<{ instance: string }>>("SELECT instance FROM limit_counts WHERE name = 'g:198.51.100.4'");
    assert.deepEqual(left, [], 'abandoned and own expired rows are gone');
  });

  test('a key longer than the column is stored as a digest and answered under its own name', async () => {
    const long = `r:key:${'x'.repeat(400)}`;
    const [sums] = await counts.exchange('f'.repeat(32), [row(long, 1, 5)], 11_000, false);
    assert.equal(sums?.name, long);
    assert.ok(storedName(long).length < 64);
    assert.notEqual(storedName(long), storedName(`${long}y`));
  });
});
