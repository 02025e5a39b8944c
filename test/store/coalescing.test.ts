import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createConnectionSource } from '../../src/db/connect.js';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { endPool } from '../../src/db/pool.js';
import { defaultTuning, poolTuning } from '../../src/db/pool-tuning.js';
import { ensureUsersTable } from '../../src/startup/schema.js';
import { ConflictError } from '../../src/errors/conflict-error.js';
import { StorageError } from '../../src/errors/storage-error.js';
import { UserStore } from '../../src/users/storage/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

interface OpenStore {
  db: TestDatabase;
  pool: ConnectionSource;
  store: UserStore;
}

/** A users table of its own, and a store on it (the default tuning unless given). */
async function openStore(label: string, tuning = defaultTuning): Promise<OpenStore> {
  const db = await createTestDatabase(label);
  await ensureUsersTable(db.config);
  const pool = createConnectionSource(db.config, tuning);
  return { db, pool, store: new UserStore(pool) };
}

async function closeStore({ db, pool }: OpenStore): Promise<void> {
  await endPool(pool);
  await db.drop();
}

const THREE_USERS = "INSERT INTO users (id, name, email) VALUES (1, 'One', 'one@x.io'), (2, 'Two', 'two@x.io'), (3, 'Three', 'three@x.io')";

// Operations submitted in the same tick leave in one batch (see db/batcher.ts), so each test below
// exercises the shared statements against the real database.
describe('coalesced store operations', () => {
  let db: TestDatabase;
  let pool: ConnectionSource;
  let store: UserStore;

  before(async () => {
    ({ db, pool, store } = await openStore('coalescing'));
  });
  after(() => closeStore({ db, pool, store }));
  beforeEach(async () => {
    await db.query('DELETE FROM users');
    await db.query(THREE_USERS);
  });

  test('updates in one batch, all ids existing: every caller is told so and every row holds its new values', async () => {
    const found = await Promise.all([1, 2, 3].map((id) => store.update(id, `New ${id}`, `new${id}@x.io`)));
    assert.deepEqual(found, [true, true, true]);
    assert.deepEqual(
      (await db.users()).map(({ id, name, email }) => [id, name, email]),
      [1, 2, 3].map((id) => [id, `New ${id}`, `new${id}@x.io`]),
    );
  });

  test('updates in one batch with missing ids: existing ones are updated and told so, missing ones get false and create nothing', async () => {
    const found = await Promise.all([1, 404, 3, 2_000_000_000].map((id) => store.update(id, `New ${id}`, `new${id}@x.io`)));
    assert.deepEqual(found, [true, false, true, false]);
    assert.deepEqual(
      (await db.users()).map(({ id, name }) => [id, name]),
      [[1, 'New 1'], [2, 'Two'], [3, 'New 3']],
    );
  });

  test('an update to the values a row already holds still finds the row', async () => {
    const found = await Promise.all([store.update(1, 'One', 'one@x.io'), store.update(2, 'Two', 'two@x.io')]);
    assert.deepEqual(found, [true, true]);
  });

  test('the same id twice in one batch: the later request wins and both are told the user exists', async () => {
    const found = await Promise.all([store.update(2, 'First', 'first@x.io'), store.update(2, 'Second', 'second@x.io')]);
    assert.deepEqual(found, [true, true]);
    const [row] = await db.query<Array<{ name: string; email: string }>>('SELECT name, email FROM users WHERE id = 2');
    assert.deepEqual({ ...row }, { name: 'Second', email: 'second@x.io' });
  });

  test('reads in one batch: each caller gets its own row, a missing id gets nothing', async () => {
    const rows = await Promise.all([3, 404, 1, 3].map((id) => store.get(id)));
    assert.deepEqual(rows.map((row) => row?.name), ['Three', undefined, 'One', 'Three']);
  });

  test('creates in one batch: a row the server refuses fails alone and every other row is stored', async () => {
    const outcomes = await Promise.allSettled([
      store.create('Kept A', 'a@x.io'),
      store.create('x'.repeat(101), 'too-long@x.io'),
      store.create('Kept B', 'b@x.io'),
    ]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.ok((outcomes[1] as PromiseRejectedResult).reason instanceof StorageError);
    // The single statements that find the culprit run concurrently, so the stored order is free.
    const stored = (await db.users()).filter(({ id }) => id > 3).map(({ name }) => name);
    assert.deepEqual(stored.sort(), ['Kept A', 'Kept B']);
  });

  test('creates in one batch: each caller gets the id of its own row', async () => {
    const names = ['Batch A', 'Batch B', 'Batch C', 'Batch D'];
    const ids = await Promise.all(names.map((name, i) => store.create(name, `batch${i}@x.io`)));
    const stored = await db.query<Array<{ id: number; name: string }>>('SELECT id, name FROM users WHERE id IN (?)', [ids]);
    assert.deepEqual(ids.map((id) => stored.find((row) => row.id === id)?.name), names);
  });

  test('creates in one batch with a refused row: the rows stored one by one still get their own ids', async () => {
    const outcomes = await Promise.allSettled([store.create('Alone A', 'alone-a@x.io'), store.create('x'.repeat(101), 'long@x.io'), store.create('Alone B', 'alone-b@x.io')]);
    const ids = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : undefined));
    const stored = await db.query<Array<{ id: number; name: string }>>('SELECT id, name FROM users WHERE id > 3 ORDER BY id');
    assert.deepEqual([ids[0], ids[2]].map((id) => stored.find((row) => row.id === id)?.name), ['Alone A', 'Alone B']);
    assert.equal(ids[1], undefined);
  });
});

describe('coalesced creates with the auto-increment step of a three-node Galera cluster', () => {
  let db: TestDatabase;
  let pool: ConnectionSource;
  let store: UserStore;

  before(async () => {
    const galeraStep = { sessionAutoIncrement: { increment: 3, offset: 2 } };
    ({ db, pool, store } = await openStore('coalescing_step', poolTuning({ connectionLimit: 4, queueLimit: 100, connectTimeoutMs: 2000, testing: galeraStep })));
  });
  after(() => closeStore({ db, pool, store }));

  test('64 creates in one batch (one INSERT ... RETURNING): ids step by 3 and each caller gets the id of its own row', async () => {
    const names = Array.from({ length: 64 }, (_, i) => `Stepped ${i}`);
    const ids = await Promise.all(names.map((name, i) => store.create(name, `step${i}@x.io`)));
    const stored = await db.query<Array<{ id: number; name: string }>>('SELECT id, name FROM users WHERE id IN (?)', [ids]);
    assert.deepEqual(ids.map((id) => stored.find((row) => row.id === id)?.name), names);
    for (let i = 1; i < ids.length; i++) assert.equal(ids[i]! - ids[i - 1]!, 3, 'one statement: consecutive steps of 3');
  });
});

describe('coalesced writes with the unique email index (UNIQUE_EMAIL)', () => {
  let db: TestDatabase;
  let pool: ConnectionSource;
  let store: UserStore;

  before(async () => {
    ({ db, pool, store } = await openStore('coalescing_unique'));
    await db.query('ALTER TABLE users ADD UNIQUE INDEX IF NOT EXISTS users_email_unique (email)');
  });
  after(() => closeStore({ db, pool, store }));
  beforeEach(async () => {
    await db.query('DELETE FROM users');
    await db.query(THREE_USERS);
  });

  test('updates in one batch, one taking another user\'s email: it alone fails with a ConflictError, the others are stored', async () => {
    const outcomes = await Promise.allSettled([store.update(1, 'New 1', 'new1@x.io'), store.update(2, 'Two', 'THREE@x.io'), store.update(3, 'New 3', 'three@x.io')]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.ok((outcomes[1] as PromiseRejectedResult).reason instanceof ConflictError);
    assert.deepEqual(
      (await db.users()).map(({ id, name, email }) => [id, name, email]),
      [[1, 'New 1', 'new1@x.io'], [2, 'Two', 'two@x.io'], [3, 'New 3', 'three@x.io']],
    );
  });

  test('one user twice in a refused batch: each request is written in arrival order, so the earlier is stored and the later conflicts', async () => {
    const outcomes = await Promise.allSettled([store.update(1, 'First', 'first@x.io'), store.update(1, 'Second', 'two@x.io'), store.update(3, 'New 3', 'new3@x.io')]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.ok((outcomes[1] as PromiseRejectedResult).reason instanceof ConflictError);
    const [row] = await db.query<Array<{ name: string; email: string }>>('SELECT name, email FROM users WHERE id = 1');
    assert.deepEqual({ ...row }, { name: 'First', email: 'first@x.io' });
  });

  test('creates in one batch, two with a taken email: those fail with a ConflictError, the rest are stored', async () => {
    const outcomes = await Promise.allSettled([store.create('A', 'a@x.io'), store.create('B', 'ONE@x.io'), store.create('C', 'c@x.io'), store.create('D', 'Two@X.IO')]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    for (const i of [1, 3]) assert.ok((outcomes[i] as PromiseRejectedResult).reason instanceof ConflictError);
    assert.deepEqual((await db.users()).filter(({ id }) => id > 3).map(({ name }) => name).sort(), ['A', 'C']);
  });
});
