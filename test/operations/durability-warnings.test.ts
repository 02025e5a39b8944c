import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { privateMariaDbSkipReason, startPrivateMariaDb, type PrivateMariaDb } from '../helpers/private-mariadb.js';
import { startService, type RunningService } from '../helpers/service.js';

const riskyLines = (service: RunningService) =>
  service.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === 'risky database setting');

/** Enough concurrent reads that the pool opens several connections, each checked. */
async function openSeveralConnections(service: RunningService): Promise<void> {
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => request(service.baseUrl, 'GET', `/api/users/${(i % 10) + 1}`)));
  assert.ok(answers.every((answer) => answer.status === 200));
}

describe('durability settings are checked on each new connection, one warning per risky setting and server', { skip: privateMariaDbSkipReason }, () => {
  let server: PrivateMariaDb;
  let service: RunningService;

  before(async () => {
    server = await startPrivateMariaDb(['--innodb-flush-log-at-trx-commit=2', '--innodb-doublewrite=0']);
    const db = await createTestDatabase('durability', server.server);
    service = await startService('durability', { db });
  });
  after(async () => {
    await service?.close();
    await service?.db.drop();
    await server?.stop();
  });

  test('a server with innodb_flush_log_at_trx_commit=2 and innodb_doublewrite=0: one warning for each, naming the value and the risk, however many connections', async () => {
    await openSeveralConnections(service);
    await openSeveralConnections(service);
    const lines = riskyLines(service);
    assert.deepEqual(lines.map((line) => [line.setting, line.value]).sort(), [['innodb_doublewrite', 'OFF'], ['innodb_flush_log_at_trx_commit', '2']]);
    for (const line of lines) {
      assert.equal(line.level, 'warn');
      assert.equal(line.server, `127.0.0.1:${server.server.port}`);
      assert.match(String(line.risk), /crash/);
    }
  });
});

describe('a server with safe settings gets no warning', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('durability_safe');
  });
  after(() => service.close());

  test('the test server (innodb_flush_log_at_trx_commit=1, doublewrite on, no binary log): no risky setting logged', async (t) => {
    const [row] = await service.db.query<Array<{ flush: string; doublewrite: number; binlog: number }>>(
      'SELECT @@innodb_flush_log_at_trx_commit AS flush, @@innodb_doublewrite AS doublewrite, @@log_bin AS binlog',
    );
    if (String(row!.flush) !== '1' || Number(row!.doublewrite) !== 1 || Number(row!.binlog) !== 0) return t.skip('the test server is configured otherwise');
    await openSeveralConnections(service);
    assert.deepEqual(riskyLines(service), []);
  });
});
