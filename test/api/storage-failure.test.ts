import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/log/logger.js';
import { createTestDatabase, testServer, throughPort, type TestDatabase } from '../helpers/database.js';
import { request, type ApiResponse } from '../helpers/http.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { assertErrorBody, tableSnapshot } from './support/contract.js';

/** What a client must never see in a 500: SQL, table internals, stack frames, driver codes. */
const LEAKS = /select|insert|update |delete from|users_away|doesn't exist|ER_|errno|\bat .*\(|\.ts:\d|node_modules|ECONN/i;

/** A storage failure answers exactly 500 {"error":"Database error"}: short, and naming nothing inside. */
function assertShortStorageError(res: ApiResponse): void {
  assert.equal(res.status, 500, res.text);
  assertErrorBody(res, 'Database error');
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.doesNotMatch(res.text, LEAKS);
}

const operations = [
  { rule: 'list', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD}` },
  { rule: 'read', method: 'GET', path: '/api/users/1' },
  { rule: 'create', method: 'POST', path: '/api/users', json: { name: 'During outage', email: 'outage@example.com' } },
  { rule: 'update', method: 'PUT', path: '/api/users/2', json: { name: 'During outage', email: 'outage@example.com' } },
  { rule: 'delete', method: 'DELETE', path: '/api/users/3' },
];

const call = (service: RunningService, op: { method: string; path: string; json?: unknown }) =>
  request(service.baseUrl, op.method, op.path, op.json === undefined ? {} : { json: op.json });

describe('the users table renamed away: every operation -> 500 with a short JSON error, then recovery', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('tablegone');
  });
  after(() => service.close());

  test('while the table is gone each operation -> 500; the log has the cause; after renaming back all succeed without a restart', async () => {
    const before = await tableSnapshot(service.db);
    await service.db.query('RENAME TABLE users TO users_away');
    let renamedBack = false;
    try {
      for (const op of operations) {
        const logLines = service.logs.length;
        const res = await call(service, op);
        assertShortStorageError(res);
        const errors = service.logs.slice(logLines).map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.level === 'error');
        assert.equal(errors.length, 1, `${op.rule}: one error logged`);
        const err = errors[0]!.err as Record<string, unknown>;
        assert.match(String(err.message), /doesn't exist/, `${op.rule}: the log names the cause`);
        assert.equal(err.code, 'ER_NO_SUCH_TABLE');
      }
      await service.db.query('RENAME TABLE users_away TO users');
      renamedBack = true;
      assert.deepEqual(await tableSnapshot(service.db), before, 'nothing was written while the table was away');

      for (const op of operations) {
        const res = await call(service, op);
        assert.equal(res.status, op.method === 'POST' ? 201 : 200, `${op.rule} succeeds again: ${res.text}`);
      }
    } finally {
      if (!renamedBack) await service.db.query('RENAME TABLE users_away TO users');
    }
  });

  test('/readyz is 503 while the users table is unusable and 200 once it is back; /healthz stays 200', async () => {
    await service.db.query('RENAME TABLE users TO users_away');
    try {
      const notReady = await request(service.baseUrl, 'GET', '/readyz');
      assert.equal(notReady.status, 503);
      assertErrorBody(notReady, 'Database unavailable');
      assert.equal((await request(service.baseUrl, 'GET', '/healthz')).status, 200);
    } finally {
      await service.db.query('RENAME TABLE users_away TO users');
    }
    assert.equal((await request(service.baseUrl, 'GET', '/readyz')).status, 200);
  });

  test('ids beyond the INT range are answered 404 without asking the broken database', async () => {
    await service.db.query('RENAME TABLE users TO users_away');
    try {
      const read = await request(service.baseUrl, 'GET', '/api/users/99999999999');
      const update = await request(service.baseUrl, 'PUT', '/api/users/2147483648', { json: { name: 'A', email: 'a@b.c' } });
      const remove = await request(service.baseUrl, 'DELETE', '/api/users/0');
      for (const res of [read, update, remove]) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.json, { error: 'User not found' });
      }
    } finally {
      await service.db.query('RENAME TABLE users_away TO users');
    }
  });

  test('no log line ever carries SQL text', () => {
    for (const line of service.logs) assert.doesNotMatch(line, /SELECT id, name|INSERT INTO|UPDATE users SET|DELETE FROM users/);
  });
});

describe('the database unreachable: /readyz 503, /healthz 200, operations 500; back to normal when it returns', () => {
  let proxy: TcpProxy;
  let db: TestDatabase;
  let service: RunningService;
  before(async () => {
    db = await createTestDatabase('unreachable');
    proxy = await startTcpProxy(testServer);
    service = await startService('unreachable', { db: { ...db, config: throughPort(db.config, proxy.port) } });
  });
  after(async () => {
    await service.close();
    await proxy.close();
    await db.drop();
  });

  test('/readyz 200 and /healthz 200 while the database answers', async () => {
    const ready = await request(service.baseUrl, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal((await request(service.baseUrl, 'GET', '/healthz')).status, 200);
  });

  test('database cut off: /readyz 503 JSON error, /healthz 200, reads and writes 500; restored: /readyz 200, requests succeed', async () => {
    await proxy.setMode('refuse');
    try {
      const notReady = await request(service.baseUrl, 'GET', '/readyz');
      assert.equal(notReady.status, 503);
      assertErrorBody(notReady, 'Database unavailable');
      assert.equal((await request(service.baseUrl, 'GET', '/healthz')).status, 200);
      for (const op of operations) assertShortStorageError(await call(service, op));
    } finally {
      await proxy.setMode('forward');
    }
    await waitUntil('/readyz to return to 200 once the database answers', async () => (await request(service.baseUrl, 'GET', '/readyz')).status === 200, {
      timeoutMs: 10_000,
    });
    const read = await request(service.baseUrl, 'GET', '/api/users/1');
    assert.equal(read.status, 200);
    const created = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'After', email: 'after@example.com' } });
    assert.equal(created.status, 201);
  });
});

describe('/readyz before the schema is in place', () => {
  test('a service that cannot reach its database at start -> /readyz 503, /healthz 200, one line per attempt with the server, the reason and a growing pause', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 1 }, 'refuse');
    const logs: string[] = [];
    const app = createApp({
      db: { servers: [{ host: '127.0.0.1', port: proxy.port }], user: 'root', password: '', database: 'usvc_never_created' },
      accessPassword: TEST_PASSWORD,
      logger: createLogger((line) => logs.push(line)),
      testing: { schemaRetryMs: 50, schemaRetryMaxMs: 200 },
    });
    const address = await app.listen(0, '127.0.0.1');
    const preparing = app.prepareSchema();
    try {
      const baseUrl = `http://127.0.0.1:${address.port}`;
      const ready = await request(baseUrl, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assertErrorBody(ready, 'Database unavailable');
      assert.equal((await request(baseUrl, 'GET', '/healthz')).status, 200);
      const retries = (): Array<Record<string, unknown>> =>
        logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === 'database not reachable, retrying');
      await waitUntil('every attempt to be logged, four at least', () => retries().length >= 4, { timeoutMs: 10_000 });
      const pauses = retries().map((entry) => entry.retryInMs);
      assert.deepEqual(pauses.slice(0, 4), [50, 100, 200, 200], 'the pause doubles up to its ceiling');
      for (const entry of retries()) {
        assert.equal(entry.level, 'warn');
        assert.equal(entry.server, `127.0.0.1:${proxy.port}`);
        assert.match(String(entry.reason), /ECONNREFUSED|closed|lost|PROTOCOL/i);
        assert.ok(!JSON.stringify(entry).includes('    at '), 'no stack trace for an unreachable database');
      }
    } finally {
      await app.close(1000);
      await preparing;
      await proxy.close();
    }
  });
});
