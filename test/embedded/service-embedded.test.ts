import assert from 'node:assert/strict';
import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ServiceProcess } from '../helpers/child-service.js';
import { request } from '../helpers/http.js';
import { embeddedWorkDir, serversOn } from '../helpers/mariadb-processes.js';
import { pollUntil } from '../helpers/poll-until.js';
import { runScript } from '../helpers/run-script.js';

const PASSWORD = 'embedded-pass';
const { workDir, dataDir } = embeddedWorkDir('usvc-embedded-');

/** `npm start` in workDir with no DB_HOST set: the embedded database. */
async function startService(t: { after(fn: () => Promise<unknown>): void }): Promise<{ service: ServiceProcess; baseUrl: string; ms: number }> {
  const began = Date.now();
  const service = new ServiceProcess(
    { PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: PASSWORD },
    'src/commands/start.ts',
    { cwd: workDir, args: ['--embedded-by-default'] },
  );
  t.after(() => service.stop());
  const listening = await service.logEntry('listening', 60_000);
  assert.equal(listening.db, 'embedded: ./data/mysql', 'the start-up line names the database');
  assert.match(String(listening.docs), /^http:\/\/127\.0\.0\.1:\d+\/apidocs$/);
  const baseUrl = `http://127.0.0.1:${String(listening.port)}`;
  await pollUntil('/readyz 200', async () => ((await request(baseUrl, 'GET', '/readyz')).status === 200 ? true : undefined), {
    timeoutMs: 60_000,
  });
  return { service, baseUrl, ms: Date.now() - began };
}

async function stopService(service: ServiceProcess): Promise<void> {
  service.signal('SIGTERM');
  const exit = await service.exited;
  assert.deepEqual(exit, { code: 0, signal: null }, 'SIGTERM ends the service cleanly');
  assert.deepEqual(serversOn(dataDir), [], 'no database process is left after the stop');
  const last = await service.logEntry('shutdown complete');
  assert.equal(last.embeddedDatabase, 'stopped', 'the last line says the embedded database stopped');
  assert.equal(service.entries().at(-1)?.msg, 'shutdown complete', 'and it is the last line');
}

describe('DB_HOST unset under npm start: the embedded database', { concurrency: false }, () => {
  test('a create survives a restart, the seed users are not seeded twice, and no database process outlives the service', async (t) => {
    const first = await startService(t);
    t.diagnostic(`first start (data directory initialised) ready after ${first.ms} ms`);
    const created = await request(first.baseUrl, 'POST', '/api/users', { json: { name: 'Kept', email: 'kept@example.com' } });
    assert.equal(created.status, 201);
    await stopService(first.service);

    const second = await startService(t);
    t.diagnostic(`later start ready after ${second.ms} ms`);
    const list = await request(second.baseUrl, 'GET', `/api/users?pwd=${PASSWORD}`);
    assert.equal(list.status, 200);
    const users = list.json as Array<{ name: string }>;
    assert.equal(users.length, 11, 'the ten seed users and the one created, once each');
    assert.equal(users.at(-1)!.name, 'Kept');
    await stopService(second.service);
  });

  test('a crashed service leaves a server behind that does not block the next start', async (t) => {
    const crashed = await startService(t);
    crashed.service.signal('SIGKILL');
    await crashed.service.exited;
    const restarted = await startService(t);
    assert.equal((await request(restarted.baseUrl, 'GET', '/api/users/1')).status, 200);
    await stopService(restarted.service);
  });

  test('the embedded server dying under the service: the service says so and exits non-zero', async (t) => {
    const { service } = await startService(t);
    for (const pid of serversOn(dataDir)) process.kill(pid, 'SIGKILL');
    const exit = await service.exited;
    assert.deepEqual(exit, { code: 1, signal: null });
    const entry = service.entries().find((line) => line.msg === 'the embedded database stopped unexpectedly');
    assert.ok(entry, 'logged');
    assert.equal(entry.log, join(dataDir, 'server.log'), 'the line names the server log');
  });

  test('npm run db:init works on the embedded database and stops it afterwards', async () => {
    const result = await runScript('src/commands/db-init.ts', {}, 60_000, { cwd: workDir, args: ['--embedded-by-default'] });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /already exists on embedded: \.\/data\/mysql/);
    assert.deepEqual(serversOn(dataDir), []);
  });

  test('a DB_EMBEDDED_BIN that names no executable stops the start with one readable line and a non-zero exit', async () => {
    const result = await runScript('src/commands/start.ts', { PORT: '0', DB_HOST: 'embedded', DB_EMBEDDED_BIN: join(workDir, 'no-such-mariadbd') }, 20_000, {
      cwd: workDir,
    });
    assert.equal(result.code, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /DB_EMBEDDED_BIN/);
    assert.match(result.stderr, /apt-get install mariadb-server/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });

  test('a data directory owned by another account stops the start with one readable line and a non-zero exit', { skip: process.getuid?.() !== 0 && 'needs root to give a folder to another account' }, async () => {
    const dataDir = join(workDir, 'someone-elses');
    mkdirSync(dataDir);
    chownSync(dataDir, 65534, 65534);
    const result = await runScript('src/commands/start.ts', { PORT: '0', DB_HOST: 'embedded', DB_EMBEDDED_DIR: dataDir }, 20_000, { cwd: workDir });
    assert.equal(result.code, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^The embedded database \(DB_HOST=embedded\) cannot start: The data directory .* belongs to uid 65534/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });
});
