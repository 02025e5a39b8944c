import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import type { PoolConnection } from 'mysql2';
import { CountingSource } from '../../src/db/counting-source.js';
import { Database } from '../../src/db/database.js';
import { StorageError } from '../../src/errors/storage-error.js';

const deadlock = () => Object.assign(new Error('Deadlock found'), { errno: 1213, sqlState: '40001' });
const connectionLost = () => Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
const notPrimary = () => Object.assign(new Error('WSREP has not yet prepared node for application use'), { errno: 1047, sqlState: '08S01' });
const duringCommit = () => Object.assign(new Error('Got error 6 during COMMIT'), { errno: 1180, sqlState: 'HY000' });
const refused = () => Object.assign(new Error('Data too long'), { errno: 1406, sqlState: '22001' });

/**
 * A stand-in for the database (pure unit test): every step a transaction sends (begin, each
 * statement, commit, rollback) is logged and answered from a script by its name; what is not
 * scripted succeeds.
 */
function fakeSource(script: Record<string, unknown[]>): { db: Database; log: string[] } {
  const log: string[] = [];
  const answer = (step: string, done: (error: Error | null, result?: unknown) => void): void => {
    log.push(step);
    const next = script[step]?.shift() ?? { affectedRows: 1, insertId: 1 };
    setImmediate(() => (next instanceof Error ? done(next) : done(null, next)));
  };
  const connection = Object.assign(new EventEmitter(), {
    beginTransaction: (done: (error: Error | null) => void) => answer('begin', done),
    commit: (done: (error: Error | null) => void) => answer('commit', done),
    rollback: (done: (error: Error | null) => void) => answer('rollback', done),
    execute: (options: { sql: string }, done: (error: Error | null, result?: unknown) => void) => answer(options.sql, done),
    ping: (done: (error: Error | null) => void) => setImmediate(() => done(null)),
    release() {},
    destroy() {},
  }) as unknown as PoolConnection;
  const source = new CountingSource({ getConnection: (callback) => callback(null, connection), end: (callback) => callback() });
  return { db: new Database(source, 4000, 60_000), log };
}

const twoStatements = (db: Database, keep?: (value: string) => boolean) =>
  db.transaction(
    async (run) => {
      await run('A', []);
      await run('B', []);
      return 'done';
    },
    undefined,
    keep,
  );

describe('Database.transaction: commits once, runs again only when nothing can have been committed', () => {
  test('statements then commit, in order, on one connection', async () => {
    const { db, log } = fakeSource({});
    assert.equal(await twoStatements(db), 'done');
    assert.deepEqual(log, ['begin', 'A', 'B', 'commit']);
  });

  test('a value `keep` refuses is rolled back, not committed', async () => {
    const { db, log } = fakeSource({});
    assert.equal(await twoStatements(db, () => false), 'done');
    assert.deepEqual(log, ['begin', 'A', 'B', 'rollback']);
  });

  test('a transaction the server rolled back whole (deadlock, certification conflict) runs again from the start', async () => {
    const { db, log } = fakeSource({ B: [deadlock()] });
    assert.equal(await twoStatements(db), 'done');
    assert.deepEqual(log, ['begin', 'A', 'B', 'rollback', 'begin', 'A', 'B', 'commit']);
  });

  test('a connection lost before the commit was sent runs the whole transaction again on a connection that answers', async () => {
    const { db, log } = fakeSource({ B: [connectionLost()] });
    assert.equal(await twoStatements(db), 'done');
    assert.deepEqual(log, ['begin', 'A', 'B', 'begin', 'A', 'B', 'commit']);
  });

  test('a connection lost during the commit is never run again: a StorageError, the outcome unknown', async () => {
    const { db, log } = fakeSource({ commit: [connectionLost()] });
    await assert.rejects(twoStatements(db), StorageError);
    assert.deepEqual(log, ['begin', 'A', 'B', 'commit']);
  });

  test('a node that left the primary component (1047) before the commit: nothing can have replicated, the transaction runs again', async () => {
    const { db, log } = fakeSource({ B: [notPrimary()] });
    assert.equal(await twoStatements(db), 'done');
    assert.deepEqual(log, ['begin', 'A', 'B', 'rollback', 'begin', 'A', 'B', 'commit']);
  });

  for (const [name, error] of [['1047, the node left the primary component', notPrimary], ['1180, ER_ERROR_DURING_COMMIT', duringCommit]] as const) {
    test(`a commit answered ${name} is never run again: the other nodes may have committed it; outcome unknown`, async () => {
      const { db, log } = fakeSource({ commit: [error()] });
      await assert.rejects(twoStatements(db), (caught: unknown) => caught instanceof StorageError && caught.kind === 'unknown outcome');
      assert.deepEqual(log.filter((step) => step !== 'rollback'), ['begin', 'A', 'B', 'commit']);
    });
  }

  test('a statement refused for good rolls back and fails without running again', async () => {
    const { db, log } = fakeSource({ A: [refused()] });
    await assert.rejects(twoStatements(db), StorageError);
    assert.deepEqual(log, ['begin', 'A', 'rollback']);
  });
});
