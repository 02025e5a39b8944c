import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { migrationLockName } from '../../src/startup/migration-lock.js';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, testServer, type TestDatabase } from '../helpers/database.js';
import type { ApiResponse } from '../helpers/http.js';
import { assertNotReady } from '../helpers/not-ready.js';
import { waitUntil } from '../helpers/poll-until.js';
import { dbEnv } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { createOldSchema } from './support/schema-state.js';
import { writtenEvents } from '../events/support/numbered.js';

/**
 * The API waits for the schema: while the steps requests need are still being applied (here held
 * up for real, by the migration lock another runner would hold), every API request is refused 503
 * with Retry-After, /readyz says 503, and nothing is written; once 'schema ready' is logged every
 * request is served, each create with its event, while index builds go on (or wait for a
 * transaction holding the table, without holding up requests).
 */

const WAITING = 'waiting for another instance to finish the schema migrations';
const SEED_USERS = 10;

/** One request on a connection of its own, so that with WORKERS=2 the requests go to both workers in turn. */
function call(baseUrl: string, method: string, path: string, json?: unknown): Promise<ApiResponse> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { method, agent: false, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers, text, json: parsed });
      });
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`${method} ${path}: no answer within 15 s`)));
    req.once('error', reject);
    req.end(body);
  });
}

/** Every kind of API request answers 503 at once; the probes say alive but not ready; preflights are still answered. */
async function assertNotServing(baseUrl: string, rounds = 1): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    assertNotReady(await call(baseUrl, 'GET', '/api/users/1'), 'read one');
    assertNotReady(await call(baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`), 'list');
    assertNotReady(await call(baseUrl, 'POST', '/api/users', { name: 'Too early', email: `early-${round}@example.com` }), 'create');
    assertNotReady(await call(baseUrl, 'PUT', '/api/users/2', { name: 'Too early', email: 'early@example.com' }), 'update');
    assertNotReady(await call(baseUrl, 'DELETE', '/api/users/3'), 'delete');
    const ready = await call(baseUrl, 'GET', '/readyz');
    assert.equal(ready.status, 503, `/readyz: ${ready.text}`);
    assert.equal((await call(baseUrl, 'GET', '/healthz')).status, 200);
  }
  assert.equal((await call(baseUrl, 'OPTIONS', '/api/users')).status, 204, 'a preflight needs no schema');
}

/** Reads and creates succeed, each create recorded with its event, and what was refused before left nothing. */
async function assertServing(baseUrl: string, db: TestDatabase, creates: number): Promise<void> {
  assert.equal((await call(baseUrl, 'GET', '/readyz')).status, 200);
  const one = await call(baseUrl, 'GET', '/api/users/1');
  assert.equal(one.status, 200, one.text);
  for (let i = 0; i < creates; i++) {
    const created = await call(baseUrl, 'POST', '/api/users', { name: `After ${i}`, email: `after-${i}@example.com` });
    assert.equal(created.status, 201, created.text);
  }
  const list = await call(baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
  assert.equal(list.status, 200, list.text);
  assert.equal((list.json as unknown[]).length, SEED_USERS + creates, 'the seed and the creates made after: nothing refused before was stored');
  const events = (await writtenEvents(db)).filter((event) => event.type === 'user.created');
  assert.equal(events.length, creates, 'every create has its event');
}

/** The migration lock, taken on a connection of the test's own, as another runner migrating would hold it. */
async function holdMigrationLock(db: TestDatabase): Promise<{ release(): Promise<void> }> {
  const holder = await mysql.createConnection(testServer);
  const lock = migrationLockName(db.config.database);
  const [rows] = await holder.query<Array<mysql.RowDataPacket>>('SELECT GET_LOCK(?, 10) AS got', [lock]);
  assert.equal(Number(rows[0]?.got), 1);
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      // Ending the session frees its named locks.
      await holder.end();
    },
  };
}

function startService(db: TestDatabase, env: Record<string, string>): ServiceProcess {
  return new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, EVENTS: 'on', ...env });
}

describe('API requests before every migration the settings need is applied', () => {
  test('EVENTS=on on a new database: with the users table created and seeded but the event tables not yet, API requests get 503 with Retry-After and /readyz 503; after "schema ready", 2xx with events', async () => {
    const db = await createTestDatabase('notready_new');
    const lock = await holdMigrationLock(db);
    const service = startService(db, {});
    try {
      const baseUrl = `http://127.0.0.1:${await service.port()}`;
      await service.logEntry('users table created and seeded');
      await service.logEntry(WAITING);
      await assertNotServing(baseUrl);
      assert.equal(service.entries().some((entry) => entry.msg === 'schema ready'), false);

      await lock.release();
      await service.logEntry('schema ready');
      await assertServing(baseUrl, db, 5);
    } finally {
      await lock.release();
      await service.stop();
      await db.drop();
    }
  });

  test('EVENTS=on on a database with an older table and a transaction holding it: the event tables are made, requests are served while the index build waits (never queued behind the transaction, where it would hold up every request), and the build finishes once the transaction ends', async () => {
    const db = await createTestDatabase('notready_old');
    await createOldSchema(db);
    const reader = await mysql.createConnection({ ...testServer, database: db.config.database });
    // A read in an open transaction keeps its shared metadata lock on users until it ends: ALTER TABLE waits for it.
    await reader.query('START TRANSACTION');
    await reader.query('SELECT id FROM users LIMIT 1');
    const service = startService(db, {});
    try {
      const baseUrl = `http://127.0.0.1:${await service.port()}`;
      await service.logEntry('schema ready');
      await service.logEntry('index build waits for a transaction that holds the users table');
      for (let round = 0; round < 3; round++) {
        const one = await call(baseUrl, 'GET', '/api/users/1');
        assert.equal(one.status, 200, `read one while the build waits: ${one.text}`);
      }
      await assertServing(baseUrl, db, 5);
      assert.equal(service.entries().filter((entry) => entry.msg === 'migration applied' && Number(entry.version) <= 3).length, 0, 'no index was built while the transaction held the table');

      await reader.query('COMMIT');
      await service.logEntry('schema migrated');
      assert.deepEqual(
        service.entries().filter((entry) => entry.msg === 'migration applied').map((entry) => entry.version).sort((a, b) => Number(a) - Number(b)),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13],
      );
    } finally {
      await reader.end().catch(() => {});
      await service.stop();
      await db.drop();
    }
  });

  test('WORKERS=2, EVENTS=on on a new database: the primary sets the schema up once, and no worker serves the API before it is done; then every worker does', async () => {
    const db = await createTestDatabase('notready_workers');
    const lock = await holdMigrationLock(db);
    const service = startService(db, { WORKERS: '2' });
    try {
      await waitUntil('both workers to listen', () => service.entries().filter((entry) => entry.msg === 'listening').length === 2, { timeoutMs: 30_000 });
      const baseUrl = `http://127.0.0.1:${await service.port()}`;
      await service.logEntry('users table created and seeded');
      await service.logEntry(WAITING);
      // A connection each: the primary hands them to the two workers in turn.
      await assertNotServing(baseUrl, 3);

      await lock.release();
      await waitUntil('both workers to say the schema is ready', () => service.entries().filter((entry) => entry.msg === 'schema ready').length === 2, { timeoutMs: 30_000 });
      await assertServing(baseUrl, db, 6);
      const schemaLines = service.entries().filter((entry) => entry.msg === 'users table created and seeded' || entry.msg === 'users table found');
      assert.equal(schemaLines.length, 1, 'the schema is set up once, by the primary');
    } finally {
      await lock.release();
      await service.stop();
      await db.drop();
    }
  });
});
