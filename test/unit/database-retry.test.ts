import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import type { PoolConnection } from 'mysql2';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { CountingSource } from '../../src/db/counting-source.js';
import { Database } from '../../src/db/database.js';
import { StorageError } from '../../src/errors/storage-error.js';

/** What the fake server answers to each statement in turn: a result, or an error. */
type Answer = unknown;

const serverError = (errno: number, message: string) => Object.assign(new Error(message), { errno, sqlState: 'HY000' });
const deadlock = () => serverError(1213, 'Deadlock found when trying to get lock; try restarting transaction');
const notReady = () => serverError(1047, 'WSREP has not yet prepared node for application use');
const connectionLost = () => Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });

/** A stand-in for the database (pure unit test): one connection that answers from a script. */
function fakeSource(answers: Answer[] | (() => Answer)): { source: ConnectionSource; statements: () => number } {
  let statements = 0;
  const next = (): Answer => (typeof answers === 'function' ? answers() : answers.shift());
  const connection = Object.assign(new EventEmitter(), {
    execute(_options: unknown, done: (error: Error | null, result?: unknown) => void) {
      statements++;
      const answer = next();
      setImmediate(() => (answer instanceof Error ? done(answer) : done(null, answer)));
    },
    /** A streamed query: its rows one by one, or its error, then 'end', as mysql2 emits them. */
    query() {
      statements++;
      const answer = next();
      const emitter = new EventEmitter();
      setImmediate(() => {
        if (answer instanceof Error) emitter.emit('error', answer);
        else for (const row of answer as unknown[]) emitter.emit('result', row);
        emitter.emit('end');
      });
      return emitter;
    },
    pause() {},
    resume() {},
    ping(done: (error: Error | null) => void) {
      setImmediate(() => done(null));
    },
    release() {},
    destroy() {},
  }) as unknown as PoolConnection;
  return {
    source: new CountingSource({ getConnection: (callback) => callback(null, connection), end: (callback) => callback() }),
    statements: () => statements,
  };
}

describe('Database: statements the server rolled back whole run again; others do not', () => {
  test('a write lost to a certification conflict (1213) runs again, and only its success is reported', async () => {
    const { source, statements } = fakeSource([deadlock(), deadlock(), { affectedRows: 1 }]);
    const result = await new Database(source, 4000, 60_000).write('UPDATE users SET name = ? WHERE id = ?', ['x', 1]);
    assert.deepEqual(result, { affectedRows: 1 });
    assert.equal(statements(), 3);
  });

  test('a read on a Galera node not ready yet (1047) runs again', async () => {
    const { source, statements } = fakeSource([notReady(), [{ id: 1 }]]);
    assert.deepEqual(await new Database(source, 4000, 60_000).read('SELECT 1', []), [{ id: 1 }]);
    assert.equal(statements(), 2);
  });

  test('a write answered 1047 (its node left the primary component while it replicated) is never run again: outcome unknown', async () => {
    const { source, statements } = fakeSource([notReady(), { affectedRows: 1 }]);
    await assert.rejects(
      new Database(source, 4000, 60_000).write('INSERT INTO users (name, email) VALUES (?, ?)', ['a', 'b']),
      (error: unknown) => error instanceof StorageError && error.kind === 'unknown outcome',
    );
    assert.equal(statements(), 1);
  });

  test('a write whose connection was lost after sending is never run again: 500, outcome unknown', async () => {
    const { source, statements } = fakeSource([connectionLost(), { affectedRows: 1 }]);
    await assert.rejects(new Database(source, 4000, 60_000).write('INSERT INTO users (name, email) VALUES (?, ?)', ['a', 'b']), StorageError);
    assert.equal(statements(), 1);
  });

  test('a statement refused for good (1406, data too long) is not run again', async () => {
    const { source, statements } = fakeSource([serverError(1406, 'Data too long'), { affectedRows: 1 }]);
    await assert.rejects(new Database(source, 4000, 60_000).write('INSERT INTO users (name, email) VALUES (?, ?)', ['a', 'b']), StorageError);
    assert.equal(statements(), 1);
  });

  test('a write refused by a unique key (1062) is not run again: a duplicate StorageError', async () => {
    const { source, statements } = fakeSource([serverError(1062, "Duplicate entry 'a@b.c' for key 'users_email_unique'"), { affectedRows: 1 }]);
    await assert.rejects(
      new Database(source, 4000, 60_000).write('INSERT INTO users (name, email) VALUES (?, ?)', ['a', 'a@b.c']),
      (error: unknown) => error instanceof StorageError && error.kind === 'duplicate',
    );
    assert.equal(statements(), 1);
  });

  test('a certification conflict (1213) followed by a duplicate key (1062) on the retry ends as a duplicate', async () => {
    const { source, statements } = fakeSource([deadlock(), serverError(1062, 'Duplicate entry'), { affectedRows: 1 }]);
    await assert.rejects(
      new Database(source, 4000, 60_000).write('INSERT INTO users (name, email) VALUES (?, ?)', ['a', 'a@b.c']),
      (error: unknown) => error instanceof StorageError && error.kind === 'duplicate',
    );
    assert.equal(statements(), 2);
  });

  test('conflicts that never end stop at the operation\'s budget with a StorageError', async () => {
    const { source, statements } = fakeSource(() => deadlock());
    const error = await new Database(source, 300, 60_000).write('UPDATE users SET name = ? WHERE id = ?', ['x', 1]).catch((caught: unknown) => caught);
    assert.ok(error instanceof StorageError);
    // The last conflict, or, when the budget ran out while a try was under way (a busy machine), the deadline.
    const cause = error.cause as { errno?: number; code?: string };
    assert.ok(cause.errno === 1213 || cause.code === 'DB_DEADLINE_EXCEEDED', `cause: ${String(cause.errno ?? cause.code)}`);
    assert.ok(statements() > 1, 'it was tried more than once');
  });
});

describe('Database.stream: a listing rolled back before its first row runs again', () => {
  const listing = async (db: Database): Promise<{ rows: unknown[]; error?: StorageError }> => {
    const rows: unknown[] = [];
    const encoder = { add: (row: unknown) => void rows.push(row), end: () => Buffer.alloc(0) };
    try {
      await (await db.stream('SELECT json FROM users ORDER BY id', [], encoder)).rest?.sendTo((_chunk, sent) => sent());
      return { rows };
    } catch (error) {
      return { rows, error: error as StorageError };
    }
  };

  test('a node not ready (1047) before the first row: the listing runs again and streams every row', async () => {
    const { source, statements } = fakeSource([notReady(), [{ json: 'a' }, { json: 'b' }]]);
    const { rows, error } = await listing(new Database(source, 4000, 60_000));
    assert.equal(error, undefined);
    assert.deepEqual(rows, [{ json: 'a' }, { json: 'b' }]);
    assert.equal(statements(), 2);
  });

  test('an error that is no rollback fails the listing at once', async () => {
    const { source, statements } = fakeSource([serverError(1146, "Table 'users' doesn't exist"), [{ json: 'a' }]]);
    const { rows, error } = await listing(new Database(source, 4000, 60_000));
    assert.ok(error instanceof StorageError);
    assert.deepEqual(rows, []);
    assert.equal(statements(), 1);
  });
});
