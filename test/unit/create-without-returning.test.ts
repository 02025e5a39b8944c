import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConnectionPool } from '../../src/db/connection-source.js';
import { CountingSource } from '../../src/db/counting-source.js';
import { sql } from '../../src/db/statements.js';
import { UserStore } from '../../src/users/storage/store.js';

/**
 * A stand-in for a MySQL server, which has no INSERT ... RETURNING: it refuses that statement with
 * MySQL's syntax error and stores single-row inserts, stepping ids by 3 as a Galera node would.
 */
function mysqlWithoutReturning() {
  const rows = new Map<number, string>();
  const statements: string[] = [];
  let nextId = 2;
  const connection = {
    execute({ sql: statement, values }: { sql: string; values: unknown[] }, done: (error: Error | null, result?: unknown) => void) {
      statements.push(statement);
      setImmediate(() => {
        if (statement.includes('RETURNING')) {
          done(Object.assign(new Error('You have an error in your SQL syntax'), { errno: 1064, sqlState: '42000', code: 'ER_PARSE_ERROR' }));
        } else if (statement === sql.createUser) {
          const id = nextId;
          nextId += 3;
          rows.set(id, values[0] as string);
          done(null, { affectedRows: 1, insertId: id });
        } else {
          done(new Error(`unexpected statement ${statement}`));
        }
      });
    },
    ping: (done: (error: Error | null) => void) => setImmediate(() => done(null)),
    release: () => {},
    destroy: () => {},
  };
  const pool = { getConnection: (done: (error: Error | null, c: unknown) => void) => setImmediate(() => done(null, connection)) };
  // Only what Database calls on a pool and its connections exists: a fake for this pure unit test.
  return { pool: new CountingSource(pool as unknown as ConnectionPool), rows, statements };
}

test('on a server without RETURNING a batch of creates falls back to single inserts, each caller gets its own insert id, and RETURNING is not tried again', async () => {
  const server = mysqlWithoutReturning();
  const store = new UserStore(server.pool);
  const first = ['A', 'B', 'C', 'D'];
  const firstIds = await Promise.all(first.map((name) => store.create(name, `${name}@x.io`)));
  assert.deepEqual(firstIds.map((id) => server.rows.get(id)), first);
  const second = ['E', 'F', 'G'];
  const secondIds = await Promise.all(second.map((name) => store.create(name, `${name}@x.io`)));
  assert.deepEqual(secondIds.map((id) => server.rows.get(id)), second);
  assert.equal(new Set([...firstIds, ...secondIds]).size, 7);
  assert.equal(server.statements.filter((statement) => statement.includes('RETURNING')).length, 1, 'refused once, then never sent again');
});
