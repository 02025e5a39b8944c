import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { createApp } from '../../src/app.js';
import { findServerBinaries, startPrivateServer } from '../../src/embedded-db/index.js';
import { createLogger } from '../../src/log/logger.js';
import { migrationLockName } from '../../src/startup/migration-lock.js';
import { UnusableSchemaError } from '../../src/startup/unusable-schema.js';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, testServer, type TestDatabase } from '../helpers/database.js';
import { embeddedWorkDir, isRunning, serversOn } from '../helpers/mariadb-processes.js';
import { waitUntil } from '../helpers/poll-until.js';
import { dbEnv } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { workerPids } from '../helpers/service-workers.js';
import { createOldSchema, logged } from './support/schema-state.js';

/** The service started as production starts it, over `db`, run to its end. */
async function startToTheEnd(db: TestDatabase, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; lines: string[] }> {
  const child = new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, ...env });
  try {
    const { code } = await Promise.race([
      child.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the service did not stop: ${child.lines.join('\n')}`)), 30_000)),
    ]);
    return { code, stderr: child.stderr, lines: child.lines };
  } finally {
    await child.stop();
  }
}

function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${stderr}`);
  return lines[0]!;
}

const cases: Array<{ rule: string; change: string; env?: Record<string, string>; says: RegExp }> = [
  {
    rule: 'a users table lacking a column stops the start: exit 1, one line naming the column',
    change: 'ALTER TABLE users DROP COLUMN created_at',
    says: /^The table \S+\.users cannot be used: it lacks the column created_at \(TIMESTAMP or DATETIME\)$/,
  },
  {
    rule: 'a column of an incompatible type stops the start: exit 1, one line naming the column and its type',
    change: 'ALTER TABLE users MODIFY email VARCHAR(50) NOT NULL',
    says: /^The table \S+\.users cannot be used: it has email as varchar\(50\), which is not a character type of at least 100 characters$/,
  },
  {
    rule: 'with WORKERS=2 a column of an incompatible type stops the primary and its workers: exit 1, one line',
    change: 'ALTER TABLE users MODIFY id VARCHAR(20) NOT NULL',
    env: { WORKERS: '2' },
    says: /^The table \S+\.users cannot be used: it has id as varchar\(20\), which is not an integer type$/,
  },
  {
    rule: 'UNIQUE_EMAIL=on over duplicated emails (compared case-insensitively) stops the start: exit 1, one line with their count and the query listing them',
    change: "INSERT INTO users (name, email) VALUES ('Again', 'JOHN@example.com'), ('Twice', 'jane@example.com'), ('Thrice', 'Jane@Example.com')",
    env: { UNIQUE_EMAIL: 'on' },
    says: /^UNIQUE_EMAIL=on, but 2 emails are used by more than one user; list them with: SELECT email, COUNT\(\*\) FROM users GROUP BY email HAVING COUNT\(\*\) > 1$/,
  },
];

describe('a schema the service cannot use stops the start', () => {
  for (const { rule, change, env, says } of cases) {
    test(rule, async () => {
      const db = await createTestDatabase('mig_unusable');
      try {
        await createOldSchema(db);
        await db.query(change);
        const ended = await startToTheEnd(db, env);
        assert.equal(ended.code, 1);
        assert.match(oneLine(ended.stderr), says);
        assert.deepEqual(logged(ended.lines, 'database not reachable, retrying'), [], 'not retried as an unreachable database');
        assert.deepEqual(logged(ended.lines, 'schema set-up failed, retrying'), []);
      } finally {
        await db.drop();
      }
    });
  }

  test('with WORKERS=2 the workers, listening by then, are stopped with the primary', async () => {
    const db = await createTestDatabase('mig_unusable_workers');
    const holder = await mysql.createConnection(testServer);
    try {
      await createOldSchema(db);
      await db.query("INSERT INTO users (name, email) VALUES ('Again', 'john@example.com')");
      // The duplicates are counted under the migration lock: holding it keeps the primary waiting until both workers listen.
      const lock = migrationLockName(db.config.database);
      await holder.query('SELECT GET_LOCK(?, 10)', [lock]);
      const child = new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, WORKERS: '2', UNIQUE_EMAIL: 'on' });
      try {
        await child.logEntry('waiting for another instance to finish the schema migrations');
        await waitUntil('both workers to listen', () => logged(child.lines, 'listening').length === 2, { timeoutMs: 30_000 });
        const workers = workerPids(child.pid);
        assert.equal(workers.length, 2);
        await holder.query('SELECT RELEASE_LOCK(?)', [lock]);
        const { code } = await child.exited;
        assert.equal(code, 1);
        assert.match(oneLine(child.stderr), /^UNIQUE_EMAIL=on, but 1 email is used by more than one user; list them with: /);
        for (const pid of workers) assert.equal(isRunning(pid), false, `worker ${pid} is gone`);
      } finally {
        await child.stop();
      }
    } finally {
      await holder.end();
      await db.drop();
    }
  });

  test('with the embedded database, a table the service cannot use stops the start and the embedded database with it', async () => {
    const { workDir, dataDir } = embeddedWorkDir('usvc-mig-embedded-');
    const server = await startPrivateServer({ dataDir, binaries: findServerBinaries() });
    try {
      const admin = await mysql.createConnection({ socketPath: server.socketPath, user: 'root' });
      await admin.query('CREATE DATABASE restapi');
      await admin.query('CREATE TABLE restapi.users (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100) NOT NULL, email VARCHAR(100) NOT NULL)');
      await admin.end();
    } finally {
      await server.stop();
    }
    const child = new ServiceProcess({ PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD }, 'src/commands/start.ts', { cwd: workDir, args: ['--embedded-by-default'] });
    try {
      await child.logEntry('listening', 60_000);
      const { code } = await child.exited;
      assert.equal(code, 1);
      assert.equal(oneLine(child.stderr), 'The table restapi.users cannot be used: it lacks the column created_at (TIMESTAMP or DATETIME)');
      assert.deepEqual(serversOn(dataDir), [], 'the embedded database was stopped');
    } finally {
      await child.stop();
    }
  });

  test('in one process, prepareSchema rejects with an UnusableSchemaError at once and /readyz stays 503', async () => {
    const db = await createTestDatabase('mig_unusable_app');
    const logs: string[] = [];
    const app = createApp({
      db: db.config,
      accessPassword: TEST_PASSWORD,
      logger: createLogger((line) => logs.push(line)),
      testing: { schemaRetryMs: 50, schemaRetryMaxMs: 100 },
    });
    try {
      await createOldSchema(db);
      await db.query('ALTER TABLE users DROP COLUMN email');
      const { port } = await app.listen(0, '127.0.0.1');
      await assert.rejects(app.prepareSchema(), (error: unknown) => error instanceof UnusableSchemaError && /lacks the column email/.test(error.message));
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 503);
      assert.deepEqual(logged(logs, 'database not reachable, retrying'), []);
    } finally {
      await app.close(1000);
      await db.drop();
    }
  });
});
