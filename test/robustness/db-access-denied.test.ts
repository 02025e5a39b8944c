import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, testServer, type TestDatabase } from '../helpers/database.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';

/** An account of its own on the test server, with a password, for the service to log in with wrongly. */
const user = `usvc_denied_${randomBytes(3).toString('hex')}`;
const RIGHT = `right-${randomBytes(6).toString('hex')}`;
const WRONG = `wrong-${randomBytes(6).toString('hex')}`;

let db: TestDatabase;
let admin: mysql.Connection;
before(async () => {
  db = await createTestDatabase('access_denied');
  admin = await mysql.createConnection(testServer);
  await admin.query('CREATE USER ?@? IDENTIFIED BY ?', [user, '%', RIGHT]);
});
after(async () => {
  await admin.query('DROP USER IF EXISTS ?@?', [user, '%']);
  await admin.end();
  await db.drop();
});

const server = `${testServer.host}:${testServer.port}`;
const withWrongPassword = (): Record<string, string> => ({ ...dbEnv({ ...db.config, user, password: WRONG }) });

describe('a wrong DB_PASSWORD is reported as refused credentials, not as an unreachable database', () => {
  test('the service logs the refusal naming DB_USER and the server, never the password, and keeps retrying', async (t) => {
    const service = new ServiceProcess({ ...withWrongPassword(), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD });
    t.after(() => service.stop());
    const entry = await service.logEntry('database refused the credentials (check DB_USER and DB_PASSWORD), retrying');
    assert.equal(entry.level, 'warn');
    assert.equal(entry.user, user);
    assert.equal(entry.server, server);
    assert.match(String(entry.reason), /Access denied for user/);
    await service.logEntry('listening');
    assert.equal(service.entries().filter((line) => line.msg === 'database not reachable, retrying').length, 0);
    service.signal('SIGTERM');
    await service.exited;
    for (const text of [...service.lines, service.stderr]) assert.ok(!text.includes(WRONG), `the password is not shown: ${text}`);
  });

  test('npm run db:init says the same in its one line', async () => {
    const result = await runScript('src/commands/db-init.ts', withWrongPassword());
    assert.equal(result.code, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`^db:init failed: the database refused the credentials \\(check DB_USER and DB_PASSWORD\\): Access denied for user '${user}'`));
    assert.ok(!result.stderr.includes(WRONG) && !result.stdout.includes(WRONG));
  });
});
