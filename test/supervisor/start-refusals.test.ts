import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { embeddedWorkDir, killServersOn, serversOn } from '../helpers/mariadb-processes.js';
import { runScript } from '../helpers/run-script.js';

/**
 * A start that cannot go on says why in one line on stderr, naming the setting to change, and
 * starts nothing first: no embedded database, no worker, no log line on stdout.
 */
const { workDir, dataDir } = embeddedWorkDir('usvc-refusals-');
const aFile = join(workDir, 'a-file');
writeFileSync(aFile, 'not a folder\n');
const badKeys = join(workDir, 'bad-keys');
writeFileSync(badKeys, '# a key line without its hash\nci users:write\n');

let taken: Server;
let takenPort: number;
before(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as { port: number }).port;
});
after(() => new Promise((resolve) => taken.close(resolve)));

/** `npm start`'s entry in workDir: the embedded database unless DB_HOST says otherwise. */
function start(vars: Record<string, string>) {
  return runScript('src/commands/start.ts', { PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: 'refusals', ...vars }, 20_000, {
    cwd: workDir,
    args: ['--embedded-by-default'],
  });
}

describe('refused starts: one line naming the setting, before anything starts', () => {
  const rows: Array<{ what: string; vars: () => Record<string, string>; line: RegExp }> = [
    { what: 'PORT in use', vars: () => ({ PORT: String(takenPort) }), line: /^Cannot start: PORT \d+ on HOST 127\.0\.0\.1 is in use by another process \(listen EADDRINUSE/ },
    { what: 'PORT in use, with WORKERS=2', vars: () => ({ PORT: String(takenPort), WORKERS: '2' }), line: /^Cannot start: PORT \d+ on HOST 127\.0\.0\.1 is in use/ },
    { what: 'METRICS_PORT in use', vars: () => ({ METRICS: 'on', METRICS_PORT: String(takenPort) }), line: /^Cannot start: METRICS_PORT \d+ on HOST 127\.0\.0\.1 is in use/ },
    { what: 'HOST not an address of this machine', vars: () => ({ HOST: '192.0.2.1' }), line: /^Cannot start: HOST 192\.0\.2\.1 is not an address of this machine \(/ },
    { what: 'HOST=999.1.1.1', vars: () => ({ HOST: '999.1.1.1' }), line: /^Invalid configuration: HOST must be an IP address .* got "999\.1\.1\.1"$/ },
    { what: 'HOST=not a host', vars: () => ({ HOST: 'not a host' }), line: /^Invalid configuration: HOST must be .* got "not a host"$/ },
    { what: 'METRICS_PORT equal to PORT', vars: () => ({ PORT: '5000', METRICS: 'on', METRICS_PORT: '5000' }), line: /^Invalid configuration: METRICS_PORT must differ from PORT/ },
    { what: 'METRICS_PORT without METRICS=on', vars: () => ({ METRICS_PORT: '9464' }), line: /^Invalid configuration: METRICS_PORT is set but METRICS is not on/ },
    { what: 'API_KEYS_FILE with a malformed line', vars: () => ({ AUTH: 'writes', API_KEYS_FILE: badKeys }), line: /^Invalid configuration: API_KEYS_FILE \(.*bad-keys\) line 2: expected "<name> <scopes> sha256:<hex>", found 2 fields$/ },
    { what: 'WEBHOOK_URLS without WEBHOOK_SECRET', vars: () => ({ WEBHOOK_URLS: 'https://hooks.example/users' }), line: /^Invalid configuration: WEBHOOK_URLS needs WEBHOOK_SECRET/ },
    { what: 'WEBHOOK_URLS with EVENTS=off', vars: () => ({ EVENTS: 'off', WEBHOOK_URLS: 'https://hooks.example/users' }), line: /^Invalid configuration: WEBHOOK_URLS needs EVENTS=on/ },
    { what: 'DB_EMBEDDED_DIR naming a file', vars: () => ({ DB_EMBEDDED_DIR: aFile }), line: /^The embedded database \(DB_HOST=embedded\) cannot start: DB_EMBEDDED_DIR \(.*a-file\) names a file, not a folder$/ },
    { what: 'DB_EMBEDDED_DIR below a file', vars: () => ({ DB_EMBEDDED_DIR: join(aFile, 'mysql') }), line: /: DB_EMBEDDED_DIR \(.*a-file\/mysql\) cannot be made: .*a-file is a file, not a folder$/ },
    { what: 'DB_EMBEDDED_DIR that cannot be made', vars: () => ({ DB_EMBEDDED_DIR: '/proc/nope/mysql' }), line: /: DB_EMBEDDED_DIR \(\/proc\/nope\/mysql\) cannot be made: ENOENT/ },
  ];
  for (const row of rows) {
    test(`${row.what} -> exit 1, that one line on stderr, nothing on stdout, no database started`, async () => {
      const result = await start(row.vars());
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr.trim(), row.line);
      assert.equal(result.stdout, '', 'no log line: nothing was started, nothing stopped');
      assert.equal(existsSync(dataDir), false, 'the embedded database was not even prepared');
      assert.deepEqual(serversOn(dataDir), []);
    });
  }
});

describe('a port taken while the embedded database started', () => {
  const raceDir = join(workDir, 'race', 'mysql');
  after(() => killServersOn(raceDir));

  test('the listen failure is the one line: the database is stopped without "stopped unexpectedly" or "shutting down"', async () => {
    const result = await runScript(
      'test/supervisor/fixtures/start-without-listen-check.ts',
      { PORT: String(takenPort), HOST: '127.0.0.1', ACCESS_PASSWORD: 'refusals', DB_HOST: 'embedded', DB_EMBEDDED_DIR: raceDir },
      90_000,
      { cwd: workDir },
    );
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^Cannot start: listen EADDRINUSE/);
    assert.equal(result.stdout, '', 'no log line about the database it stopped itself');
    assert.ok(existsSync(raceDir), 'the embedded database had started');
    assert.deepEqual(serversOn(raceDir), [], 'and was stopped');
  });
});
