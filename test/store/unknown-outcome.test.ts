import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createConnectionSource } from '../../src/db/connect.js';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { endPool } from '../../src/db/pool.js';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { migrations } from '../../src/db/statements.js';
import { requestHash } from '../../src/users/rules/idempotency-key.js';
import { StorageError } from '../../src/errors/storage-error.js';
import { ensureUsersTable } from '../../src/startup/schema.js';
import { UserStore } from '../../src/users/storage/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The real server made to answer as a Galera node does when it falls out of the cluster while a
 * change replicates: a trigger raises the error number the test picks for rows named `fail-*`, and
 * for rows named `once-*` on their first attempt only. Every
 * row the server was asked to insert is counted in a table outside any transaction (Aria), so a
 * statement that ran again shows, even though each attempt was rolled back.
 */
const FAILING_TRIGGER = `CREATE TRIGGER answer_as_a_lost_node BEFORE INSERT ON users FOR EACH ROW BEGIN
  DECLARE answer INT DEFAULT (SELECT errno FROM fail_with LIMIT 1);
  INSERT INTO insert_attempts (name) VALUES (NEW.name);
  IF NEW.name LIKE 'fail-%' OR (NEW.name LIKE 'once-%' AND (SELECT COUNT(*) FROM insert_attempts WHERE name = NEW.name) = 1) THEN SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = answer, MESSAGE_TEXT = 'answered as a node that left the cluster'; END IF;
END`;

const unknownOutcome = (error: unknown) => error instanceof StorageError && error.kind === 'unknown outcome';

describe('a create whose outcome is unknown is never run again', () => {
  let db: TestDatabase;
  let pool: ConnectionSource;
  let store: UserStore;
  let keyed: UserStore;

  before(async () => {
    db = await createTestDatabase('unknown_outcome');
    await ensureUsersTable(db.config);
    await db.query('CREATE TABLE insert_attempts (name VARCHAR(100)) ENGINE=Aria');
    await db.query('CREATE TABLE fail_with (errno INT)');
    await db.query(FAILING_TRIGGER);
    await db.query(migrations.find((migration) => migration.name === 'create_idempotency_keys')!.statement);
    pool = createConnectionSource(db.config, defaultTuning);
    store = new UserStore(pool);
    keyed = new UserStore(pool, defaultTuning, undefined, undefined, 86_400);
  });
  after(async () => {
    await endPool(pool);
    await db.drop();
  });
  beforeEach(async () => {
    await db.query('DELETE FROM users');
    await db.query('DELETE FROM insert_attempts');
    await db.query('DELETE FROM fail_with');
  });

  const attemptsOf = async (name: string) =>
    (await db.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM insert_attempts WHERE name = ?', [name]))[0]!.n;

  for (const [errno, what] of [
    [1180, 'ER_ERROR_DURING_COMMIT: replication of the commit failed'],
    [1047, 'ER_UNKNOWN_COM_ERROR: the node left the primary component'],
    [1205, 'ER_LOCK_WAIT_TIMEOUT: a wait during the commit timed out'],
  ] as const) {
    test(`a batch of creates answered ${errno} (${what}): every caller gets 'unknown outcome' and no row is inserted again one by one`, async () => {
      await db.query('INSERT INTO fail_with VALUES (?)', [errno]);
      // Submitted in one tick, the three share one multi-row INSERT (see db/batcher.ts).
      const outcomes = await Promise.allSettled([store.create('ann', 'a@x.io'), store.create('fail-bob', 'b@x.io'), store.create('cid', 'c@x.io')]);
      for (const outcome of outcomes) {
        assert.equal(outcome.status, 'rejected');
        assert.ok(unknownOutcome(outcome.reason), `a StorageError of unknown outcome, not ${String(outcome.reason)}`);
      }
      assert.deepEqual(await db.users(), [], 'nothing stored by a second run');
      assert.equal(await attemptsOf('ann'), 1, 'ann was sent to the server once');
      assert.equal(await attemptsOf('fail-bob'), 1, 'fail-bob was sent to the server once');
    });

    test(`a single create answered ${errno} is sent once: 'unknown outcome'`, async () => {
      await db.query('INSERT INTO fail_with VALUES (?)', [errno]);
      await assert.rejects(store.create('fail-dan', 'd@x.io'), unknownOutcome);
      assert.equal(await attemptsOf('fail-dan'), 1);
    });
  }

  test('a create refused for good (1406, data too long) in a batch still lets the others through, one by one', async () => {
    await db.query('INSERT INTO fail_with VALUES (1406)');
    const outcomes = await Promise.allSettled([store.create('ann', 'a@x.io'), store.create('fail-bob', 'b@x.io')]);
    assert.equal(outcomes[0]!.status, 'fulfilled');
    assert.equal(outcomes[1]!.status, 'rejected');
    assert.deepEqual((await db.users()).map((user) => user.name), ['ann']);
  });

  test('a create under an Idempotency-Key whose outcome is unknown looks its key up, finds it absent, and runs again once: one user, 201', async () => {
    await db.query('INSERT INTO fail_with VALUES (1180)');
    const answer = (id: number) => ({ status: 201, body: '{}', location: `/api/users/${id}` });
    const outcome = await keyed.createOnce('key-once', requestHash('once-eve', 'e@x.io'), { name: 'once-eve', email: 'e@x.io' }, answer);
    assert.equal(outcome.kind, 'created');
    assert.equal(await attemptsOf('once-eve'), 2);
    assert.deepEqual((await db.users()).map((user) => user.name), ['once-eve']);
    const again = await keyed.createOnce('key-once', requestHash('once-eve', 'e@x.io'), { name: 'once-eve', email: 'e@x.io' }, answer);
    assert.equal(again.kind, 'replayed');
  });

  test('the same create without a key is not run again: unknown outcome', async () => {
    await db.query('INSERT INTO fail_with VALUES (1180)');
    await assert.rejects(store.create('once-fay', 'f@x.io'), unknownOutcome);
    assert.equal(await attemptsOf('once-fay'), 1);
  });
});
