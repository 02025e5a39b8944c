import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ServiceProcess } from '../helpers/child-service.js';
import { clientToolsSkipReason } from '../helpers/client-tools.js';
import { request } from '../helpers/http.js';
import { embeddedWorkDir, serversOn } from '../helpers/mariadb-processes.js';
import { pollUntil } from '../helpers/poll-until.js';
import { privateMariaDbSkipReason } from '../helpers/private-mariadb.js';
import { runScript } from '../helpers/run-script.js';

const PASSWORD = 'backup-embedded-pass';
const { workDir, dataDir } = embeddedWorkDir('usvc-backup-embedded-');

/** `npm start` in workDir with no DB_HOST: the embedded database in ./data/mysql. */
async function startService(t: { after(fn: () => Promise<unknown>): void }): Promise<{ service: ServiceProcess; baseUrl: string }> {
  const service = new ServiceProcess({ PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: PASSWORD }, 'src/commands/start.ts', { cwd: workDir, args: ['--embedded-by-default'] });
  t.after(() => service.stop());
  // Starting the embedded server comes first: on a busy machine that alone has taken over 20 s.
  const baseUrl = `http://127.0.0.1:${await service.port(90_000)}`;
  await pollUntil('/readyz 200', async () => ((await request(baseUrl, 'GET', '/readyz')).status === 200 ? true : undefined), { timeoutMs: 60_000 });
  return { service, baseUrl };
}

async function stopService(service: ServiceProcess): Promise<void> {
  service.signal('SIGTERM');
  assert.deepEqual(await service.exited, { code: 0, signal: null });
}

/** `npm run db:backup` / `db:restore` in workDir, as npm runs them (with --embedded-by-default). */
const command = (script: string, args: string[]) => runScript(script, {}, 120_000, { cwd: workDir, args: ['--embedded-by-default', ...args] });

const names = async (baseUrl: string): Promise<string[]> =>
  ((await request(baseUrl, 'GET', `/api/users?pwd=${PASSWORD}`)).json as Array<{ name: string }>).map((user) => user.name);

describe('db:backup and db:restore on the embedded database', { skip: clientToolsSkipReason ?? privateMariaDbSkipReason, concurrency: false }, () => {
  let dump = '';

  test('backed up while the service runs, through its socket, to backups/<database>-<UTC time>.sql (0600)', async (t) => {
    const { service, baseUrl } = await startService(t);
    assert.equal((await request(baseUrl, 'POST', '/api/users', { json: { name: 'Kept', email: 'kept@example.com' } })).status, 201);
    const result = await command('src/commands/db-backup.ts', []);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Backed up restapi on embedded: \.\/data\/mysql \(running\) to backups\/restapi-\d{8}T\d{6}Z\.sql/);
    const files = readdirSync(join(workDir, 'backups'));
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^restapi-\d{8}T\d{6}Z\.sql$/);
    dump = join(workDir, 'backups', files[0]!);
    assert.equal(statSync(dump).mode & 0o777, 0o600);
    assert.equal(statSync(join(workDir, 'backups')).mode & 0o777, 0o700);
    assert.equal((await request(baseUrl, 'POST', '/api/users', { json: { name: 'After', email: 'after@example.com' } })).status, 201);
    assert.equal((await request(baseUrl, 'GET', '/readyz')).status, 200, 'the service kept its database');
    await stopService(service);
  });

  test('restored while the service is stopped: the server is started for it and stopped afterwards; the next start has the backup\'s users', async (t) => {
    const result = await command('src/commands/db-restore.ts', [dump]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Restoring .* into restapi on embedded: \.\/data\/mysql: this replaces the users table's rows/);
    assert.match(result.stdout, /holds the dump's 11 users/);
    assert.deepEqual(serversOn(dataDir), [], 'no database process is left');
    const { service, baseUrl } = await startService(t);
    const users = await names(baseUrl);
    assert.equal(users.length, 11);
    assert.ok(users.includes('Kept') && !users.includes('After'), users.join(', '));
    await stopService(service);
  });

  test('backed up while the service is stopped: the server is started for it and stopped afterwards', async () => {
    const result = await command('src/commands/db-backup.ts', ['--out', 'stopped.sql']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Backed up restapi on embedded: \.\/data\/mysql to stopped\.sql/);
    assert.equal(statSync(join(workDir, 'stopped.sql')).mode & 0o777, 0o600);
    assert.deepEqual(serversOn(dataDir), []);
  });

  test('restored while the service runs: a user deleted since the backup is back', async (t) => {
    const { service, baseUrl } = await startService(t);
    const kept = (await request(baseUrl, 'GET', `/api/users?pwd=${PASSWORD}`)).json as Array<{ id: number; name: string }>;
    const id = kept.find((user) => user.name === 'Kept')!.id;
    assert.equal((await request(baseUrl, 'DELETE', `/api/users/${id}`)).status, 200);
    const result = await command('src/commands/db-restore.ts', ['stopped.sql']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /into restapi on embedded: \.\/data\/mysql \(running\)/);
    assert.equal((await request(baseUrl, 'GET', `/api/users/${id}`)).status, 200);
    await stopService(service);
    assert.deepEqual(serversOn(dataDir), []);
  });

  test('a backup before the embedded database was ever started says there is nothing to back up, and starts nothing', async () => {
    const result = await runScript('src/commands/db-backup.ts', { DB_EMBEDDED_DIR: join(workDir, 'never-started') }, 30_000, {
      cwd: workDir,
      args: ['--embedded-by-default'],
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^db:backup failed: There is no embedded database in .*never-started yet: nothing to back up\.\n$/);
    assert.deepEqual(serversOn(join(workDir, 'never-started')), []);
  });
});
