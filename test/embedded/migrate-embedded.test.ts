import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { migrationsFor } from '../../src/db/statements.js';
import { latestVersion } from '../../src/startup/migrations.js';
import { ServiceProcess } from '../helpers/child-service.js';
import { request } from '../helpers/http.js';
import { embeddedWorkDir, serversOn } from '../helpers/mariadb-processes.js';
import { pollUntil } from '../helpers/poll-until.js';
import { privateMariaDbSkipReason } from '../helpers/private-mariadb.js';
import { runScript } from '../helpers/run-script.js';

const PASSWORD = 'migrate-embedded-pass';
const MIGRATE = 'src/commands/db-migrate.ts';
const { workDir, dataDir } = embeddedWorkDir('usvc-migrate-embedded-');

/** `npm run db:migrate` in workDir, as npm runs it (with --embedded-by-default). */
const migrate = (vars: Record<string, string>, args: string[] = []) => runScript(MIGRATE, vars, 120_000, { cwd: workDir, args: ['--embedded-by-default', ...args] });

describe('npm run db:migrate while npm start runs on the embedded database', { skip: privateMariaDbSkipReason }, () => {
  test('works through the running server\'s socket, as db:backup does: the dry run, then the migrations EVENTS=on adds; the service keeps serving on its one server', async (t) => {
    const service = new ServiceProcess({ PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: PASSWORD }, 'src/commands/start.ts', { cwd: workDir, args: ['--embedded-by-default'] });
    t.after(() => service.stop());
    // A first start initialises the data directory: slow on a busy machine.
    const baseUrl = `http://127.0.0.1:${String((await service.logEntry('listening', 90_000)).port)}`;
    await pollUntil('/readyz 200', async () => ((await request(baseUrl, 'GET', '/readyz')).status === 200 ? true : undefined), { timeoutMs: 60_000 });
    const [base, withEvents] = [latestVersion({ events: false }), latestVersion({ events: true })];
    const where = String.raw`restapi on embedded: \./data/mysql \(running\)`;

    const nothing = await migrate({});
    assert.equal(nothing.code, 0, nothing.stderr);
    assert.match(nothing.stdout, new RegExp(`^No migration pending: ${where} is at schema version ${base}; these settings need version ${base}\\.$`, 'm'));

    const dry = await migrate({ EVENTS: 'on' }, ['--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`^-- Dry run, nothing changed; ${where} is at schema version ${base}; these settings need version ${withEvents}\\. What would run:$`, 'm'));
    assert.match(dry.stdout, /^-- migration 4 create_user_events$/m);

    const applied = await migrate({ EVENTS: 'on' });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, new RegExp(`^${where}: applied ${migrationsFor({ events: true }).length - migrationsFor({ events: false }).length} migrations; it is at schema version ${withEvents}; these settings need version ${withEvents}\\.$`, 'm'));

    assert.equal(serversOn(dataDir).length, 1, 'the commands used the service\'s server: none started, none stopped');
    await pollUntil('the service to answer', async () => ((await request(baseUrl, 'GET', '/readyz')).status === 200 ? true : undefined));
    assert.equal((await request(baseUrl, 'POST', '/api/users', { json: { name: 'After', email: 'after@example.com' } })).status, 201);
    service.signal('SIGTERM');
    assert.deepEqual(await service.exited, { code: 0, signal: null });
    assert.deepEqual(serversOn(dataDir), []);
  });
});
