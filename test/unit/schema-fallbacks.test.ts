import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isIndexMigration, migrations, sql } from '../../src/db/statements.js';
import { createLogger } from '../../src/log/logger.js';
import { migrationLockName, withMigrationLock } from '../../src/startup/migration-lock.js';
import { addIndexOnline } from '../../src/startup/online-index.js';
import type { SchemaSession } from '../../src/startup/schema-session.js';

/** An error as mysql2 reports a server's refusal. */
function refusal(errno: number, message: string): Error {
  return Object.assign(new Error(message), { errno, sqlState: '42000' });
}

/**
 * A stand-in for a server that answers each statement by `answer` (a value, or an Error to throw),
 * recording every statement it was sent.
 */
function fakeSession(answer: (statement: string) => unknown): SchemaSession & { sent: string[] } {
  const sent: string[] = [];
  const run = async (statement: string): Promise<unknown> => {
    sent.push(statement);
    const result = answer(statement);
    if (result instanceof Error) throw result;
    return result;
  };
  return {
    sent,
    query: run as SchemaSession['query'],
    long: run as SchemaSession['long'],
    connectionId: 1,
    observer: () => Promise.reject(new Error('no second connection in this stand-in')),
  };
}

const quiet = () => createLogger(() => {});
const email = migrations.filter(isIndexMigration)[0]!;

describe('a server without ADD INDEX IF NOT EXISTS (MySQL answers it with a syntax error)', () => {
  const mysqlLike = (indexThere: boolean, addFails?: Error) =>
    fakeSession((statement) => {
      if (statement.includes('IF NOT EXISTS')) return refusal(1064, 'You have an error in your SQL syntax');
      if (statement === sql.indexExists) return indexThere ? [{ 1: 1 }] : [];
      return addFails ?? {};
    });

  test('an index already there is left alone: nothing is built', async () => {
    const session = mysqlLike(true);
    await addIndexOnline(session, email, quiet(), {});
    assert.deepEqual(session.sent, [email.statement, sql.indexExists]);
  });

  test('an absent index is built online without IF NOT EXISTS', async () => {
    const session = mysqlLike(false);
    await addIndexOnline(session, email, quiet(), {});
    assert.equal(session.sent.at(-1), 'ALTER TABLE users ADD INDEX users_email (email), ALGORITHM=INPLACE, LOCK=NONE');
  });

  test('an index another runner added meanwhile (duplicate key name) counts as added', async () => {
    const session = mysqlLike(false, refusal(1061, "Duplicate key name 'users_email'"));
    await addIndexOnline(session, email, quiet(), {});
    assert.equal(session.sent.length, 3);
  });

  test('any other refusal is thrown', async () => {
    const session = mysqlLike(false, refusal(1142, 'ALTER command denied'));
    await assert.rejects(addIndexOnline(session, email, quiet(), {}), /ALTER command denied/);
  });
});

describe('the migration lock', () => {
  test('a server that refuses named locks (MariaDB Galera releases with MDEV-30473) migrates without one, with a warning, and releases nothing', async () => {
    const lines: string[] = [];
    const session = fakeSession((statement) =>
      statement === sql.takeNamedLock ? refusal(1235, "This version of MariaDB doesn't yet support 'GET_LOCK in cluster (WSREP_ON=ON)'") : [],
    );
    const result = await withMigrationLock(session, 'restapi', createLogger((line) => lines.push(line)), async () => 'migrated');
    assert.equal(result, 'migrated');
    assert.deepEqual(session.sent, [sql.takeNamedLock]);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /"level":"warn","msg":"named locks refused by the server: migrating without the lock"/);
  });

  test('the lock is released after the work, also when the work fails', async () => {
    const session = fakeSession((statement) => (statement === sql.takeNamedLock ? [{ got: 1 }] : [{}]));
    await assert.rejects(withMigrationLock(session, 'restapi', quiet(), async () => Promise.reject(new Error('failed'))), /failed/);
    assert.deepEqual(session.sent, [sql.takeNamedLock, sql.releaseNamedLock]);
  });

  test('a lock held elsewhere is waited for, logged once, until it is free', async () => {
    const lines: string[] = [];
    let attempts = 0;
    const session = fakeSession((statement) => (statement === sql.takeNamedLock ? [{ got: ++attempts < 3 ? 0 : 1 }] : [{}]));
    await withMigrationLock(session, 'restapi', createLogger((line) => lines.push(line)), async () => undefined);
    assert.equal(attempts, 3);
    assert.equal(lines.filter((line) => line.includes('waiting for another instance to finish the schema migrations')).length, 1);
  });

  test('a stop ends the wait', async () => {
    const stop = new AbortController();
    const session = fakeSession((statement) => {
      if (statement === sql.takeNamedLock) stop.abort(new Error('stopped'));
      return [{ got: 0 }];
    });
    await assert.rejects(withMigrationLock(session, 'restapi', quiet(), async () => 'never', stop.signal), /stopped/);
  });

  test('lock names stay within the 64 characters MySQL allows, and differ per database', () => {
    assert.equal(migrationLockName('restapi'), 'restapi.schema_migrations');
    const long = (last: string) => migrationLockName(`${'d'.repeat(63)}${last}`);
    assert.ok(long('a').length <= 64);
    assert.notEqual(long('a'), long('b'));
  });
});
