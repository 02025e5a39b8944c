import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import { createLogger } from '../../src/log/logger.js';
import { migrationLockName } from '../../src/startup/migration-lock.js';
import { ensureSchema } from '../../src/startup/schema.js';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, testServer } from '../helpers/database.js';
import { pollUntil, waitUntil } from '../helpers/poll-until.js';
import { dbEnv } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { allUsers, createOldSchema, logged, migrationRecords, MIGRATION_INDEXES, userIndexes } from './support/schema-state.js';

const WAITING = 'waiting for another instance to finish the schema migrations';

test('runners starting together (two services, one of WORKERS=2, and two set-ups in one process) apply each migration exactly once: each build is made by whichever runner holds the lock, and a runner that finds nothing left says the schema is up to date', async () => {
  const db = await createTestDatabase('mig_together');
  const holder = await mysql.createConnection(testServer);
  const children: ServiceProcess[] = [];
  try {
    await createOldSchema(db, 100);
    const before = await allUsers(db);
    // Holding the lock makes every runner arrive before any can migrate: the race is certain, not likely.
    const lock = migrationLockName(db.config.database);
    await holder.query('SELECT GET_LOCK(?, 10)', [lock]);

    const env = { ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD };
    children.push(new ServiceProcess(env), new ServiceProcess({ ...env, WORKERS: '2' }));
    const inProcess: string[][] = [[], []];
    const setups = inProcess.map((lines) => ensureSchema(db.config, { logger: createLogger((line) => lines.push(line)), uniqueEmail: false }));
    await Promise.all(children.map((child) => child.logEntry(WAITING, 30_000)));
    await waitUntil('both in-process set-ups to wait for the lock', () => inProcess.every((lines) => logged(lines, WAITING).length === 1));
    await holder.query('SELECT RELEASE_LOCK(?)', [lock]);

    await Promise.all(setups);
    for (const child of children) {
      const port = Number((await child.logEntry('listening')).port);
      await pollUntil(`the service on ${port} to be ready`, async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        await res?.body?.cancel();
        return res?.status === 200 ? true : undefined;
      }, { timeoutMs: 30_000 });
    }

    const runners = [...children.map((child) => child.lines), ...inProcess];
    const appliedBy = runners.map((lines) => logged(lines, 'migration applied').map((line) => line.version));
    assert.deepEqual(appliedBy.flat().sort(), [1, 2, 3], 'each version applied exactly once');
    // The index builds take the lock one at a time (so that another runner's steps wait for one build
    // at most): whoever holds it next builds the next index, and a runner that finds nothing left says so.
    for (const [i, lines] of runners.entries()) {
      const migrated = logged(lines, 'schema migrated').length;
      const upToDate = logged(lines, 'schema up to date').length;
      assert.equal(migrated + upToDate, 1, `runner ${i} ends with one line saying what it did`);
      assert.equal(migrated, appliedBy[i]!.length > 0 ? 1 : 0, `runner ${i}: 'schema migrated' exactly when it applied something`);
    }
    assert.deepEqual((await migrationRecords(db)).map((record) => record.version), [1, 2, 3]);
    assert.deepEqual(await userIndexes(db), ['PRIMARY', ...MIGRATION_INDEXES]);
    assert.deepEqual(await allUsers(db), before);
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await holder.end();
    await db.drop();
  }
});
