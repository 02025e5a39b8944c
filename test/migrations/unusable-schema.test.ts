import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/log/logger.js';
import { UnusableSchemaError } from '../../src/startup/unusable-schema.js';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { isRunning } from '../helpers/mariadb-processes.js';
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

  test('with WORKERS=2 no worker outlives the primary that stopped', async () => {
    const db = await createTestDatabase('mig_unusable_workers');
    try {
      await createOldSchema(db);
      await db.query('ALTER TABLE users DROP COLUMN name');
      const child = new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, WORKERS: '2' });
      try {
        await child.logEntry('starting workers');
        const workers = workerPids(child.pid);
        assert.equal(workers.length, 2, 'both workers were forked');
        const { code } = await child.exited;
        assert.equal(code, 1);
        assert.match(oneLine(child.stderr), /lacks the column name/);
        for (const pid of workers) assert.equal(isRunning(pid), false, `worker ${pid} is gone`);
      } finally {
        await child.stop();
      }
    } finally {
      await db.drop();
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
