import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { findClientTools } from '../../src/backup/client-tools.js';
import { serverName } from '../../src/config/db-servers.js';
import { migrationsFor } from '../../src/db/statements.js';
import { latestVersion } from '../../src/startup/migrations.js';
import { projectRoot } from '../../src/paths.js';
import { clientToolsSkipReason } from '../helpers/client-tools.js';
import { createTestDatabase, testServer } from '../helpers/database.js';
import { childEnv, dbEnv, runScript, spawnScript, type ChildResult } from '../helpers/run-script.js';
import { migrationRecords, MIGRATION_INDEXES, userIndexes } from './support/schema-state.js';

const MIGRATE = 'src/commands/db-migrate.ts';
const EVENT_TABLES = ['event_batches', 'event_leases', 'event_sequence', 'user_events', 'webhook_deliveries', 'webhook_endpoints'];

/** npm itself, as the docs have the operator run it: the one running this suite when there is one, else the one on PATH. */
function npmCommand(): string {
  const npmCli = process.env.npm_execpath;
  return npmCli?.endsWith('.js') ? `"${process.execPath}" "${npmCli}"` : 'npm';
}

/** A shell pipeline, run by bash with pipefail: its status is that of the first command that failed. */
function pipeline(command: string, vars: Record<string, string>): Promise<ChildResult> {
  const child = spawn('bash', ['-o', 'pipefail', '-c', command], { cwd: projectRoot, env: childEnv(vars), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}

describe('npm run db:migrate -- --dry-run, piped', () => {
  test('into the mariadb client, as docs/operations.md prints it, on a database that does not exist: it runs as printed and leaves the schema a start would (EVENTS=on), with nothing pending', { skip: clientToolsSkipReason }, async () => {
    const db = await createTestDatabase('mig_pipe');
    try {
      const client = findClientTools().client.path;
      const env = { ...dbEnv(db.config), EVENTS: 'on', MYSQL_PWD: testServer.password };
      const [host, port] = [testServer.host, String(testServer.port)];
      const piped = await pipeline(`${npmCommand()} run -s db:migrate -- --dry-run | "${client}" --host=${host} --port=${port} --user=${testServer.user}`, env);
      assert.equal(piped.code, 0, piped.stderr);
      assert.equal(piped.stderr, '', 'neither the tool nor the client had anything to complain about');

      const needed = latestVersion({ events: true });
      assert.equal((await db.users()).length, 10, 'the users table, seeded');
      assert.deepEqual(await userIndexes(db), ['PRIMARY', ...MIGRATION_INDEXES]);
      const records = await migrationRecords(db);
      assert.deepEqual(records.map((record) => record.version), migrationsFor({ events: true }).map((migration) => migration.version));
      assert.equal(records.at(-1)!.version, needed);
      assert.ok(records.every((record) => record.duration_ms === null), 'recorded as applied by hand');
      const tables = await db.query<Array<{ name: string }>>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()');
      for (const table of EVENT_TABLES) assert.ok(tables.some((row) => row.name === table), `${table} exists`);

      const after = await runScript(MIGRATE, { ...dbEnv(db.config), EVENTS: 'on' });
      assert.equal(after.code, 0, after.stderr);
      assert.match(after.stdout, new RegExp(`^No migration pending: \\S+ on ${serverName(db.config).replace(/\./g, '\\.')} is at schema version ${needed}; these settings need version ${needed}\\.$`, 'm'));
    } finally {
      await db.drop();
    }
  });

  test('into a reader that has gone (| head -1, a closed pipe): the tool ends quietly, exit 0, no EPIPE stack trace', async () => {
    const db = await createTestDatabase('mig_pipe_closed');
    try {
      // The reader's end closed before the tool writes a byte: its first write meets EPIPE for certain.
      const child = spawnScript(MIGRATE, dbEnv(db.config), { args: ['--dry-run'] });
      child.stdout!.destroy();
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
      assert.equal(stderr, '');
      assert.equal(code, 0);

      const head = await pipeline(`${npmCommand()} run -s db:migrate -- --dry-run | head -1`, dbEnv(db.config));
      assert.equal(head.stderr, '');
      assert.equal(head.code, 0);
      assert.match(head.stdout, /^-- Dry run, nothing changed; .* What would run:\n$/);
    } finally {
      await db.drop();
    }
  });
});
