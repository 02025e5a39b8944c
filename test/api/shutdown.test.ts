import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, testDbConfig, type TestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { RawConnection } from '../helpers/raw-connection.js';
import { dbEnv, runScript } from '../helpers/run-script.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('shutdown');
});
after(() => db.drop());

const PASSWORD = 'shutdown-secret-93kd';

function chunk(data: string): string {
  return `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
}

/** Resolves with the exit, or rejects when the process is still running after the time. */
function exitWithin(service: ServiceProcess, timeoutMs: number) {
  return Promise.race([
    service.exited,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the process did not exit')), timeoutMs).unref()),
  ]);
}

/**
 * The error code of the first connection attempt that fails. The 'shutting down' line is written
 * just before the listener closes, so the first attempts may still race it.
 */
function connectionFailure(port: number): Promise<string> {
  return pollUntil(
    'a new connection to fail',
    async () => {
      try {
        (await RawConnection.open(port)).destroy();
        return undefined;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code ?? String(error);
      }
    },
    { timeoutMs: 5000, intervalMs: 20 },
  );
}

describe('graceful shutdown of src/commands/start.ts', () => {
  test('SIGTERM during a request: the request completes, new connections are refused, the process exits 0 after a last line saying so', async () => {
    const service = new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: PASSWORD });
    const connection = { current: undefined as RawConnection | undefined };
    try {
      const port = await service.port();
      await service.logEntry('schema migrated');

      const inFlight = await RawConnection.open(port);
      connection.current = inFlight;
      await inFlight.write(
        'POST /api/users HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n' +
          'Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n',
      );
      // 100 Continue: the server has the request and is waiting for its body.
      assert.equal((await inFlight.response(0)).status, 100);
      await inFlight.write(chunk('{"name":"In flight",'));

      service.signal('SIGTERM');
      assert.equal((await service.logEntry('shutting down')).signal, 'SIGTERM');
      assert.equal(await connectionFailure(port), 'ECONNREFUSED', 'new connections are refused');

      await inFlight.write(chunk('"email":"inflight@example.com"}') + '0\r\n\r\n');
      const response = await inFlight.finalResponse();
      assert.equal(response.status, 201);
      assert.deepEqual(JSON.parse(response.text), { message: 'User created successfully' });
      assert.equal(response.headers['connection'], 'close', 'the client is told the connection ends');
      assert.ok(await inFlight.closedWithin(5000), 'the server closes the finished connection instead of keeping it alive');

      const exit = await exitWithin(service, 15_000);
      assert.deepEqual(exit, { code: 0, signal: null });
      await service.logEntry('shutdown complete');
      const stopLines = service.entries().map((entry) => entry.msg).filter((msg) => msg !== 'request');
      assert.deepEqual(stopLines.slice(stopLines.indexOf('shutting down')), ['shutting down', 'draining', 'shutdown complete'], 'the last line says the shutdown finished');
      assert.deepEqual(
        await db.query('SELECT name FROM users WHERE email = ?', ['inflight@example.com']),
        [{ name: 'In flight' }],
      );
    } finally {
      connection.current?.destroy();
      await service.stop();
    }
  });

  test('SIGINT when idle -> exit 0; without ACCESS_PASSWORD a generated password is printed once and works', async () => {
    const service = new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1' });
    try {
      const port = await service.port();
      await service.logEntry('schema ready');
      const lines = service.stderr.split('\n').filter((line) => line.includes('"generatedPassword"'));
      assert.equal(lines.length, 1, 'printed exactly once, on stderr');
      const warning = JSON.parse(lines[0]!) as { level: string; msg: string; generatedPassword: string };
      assert.equal(warning.level, 'warn', 'as a JSON warning line, since the logs are JSON');
      assert.match(warning.msg, /changes on every start/);
      const generated = warning.generatedPassword;

      const baseUrl = `http://127.0.0.1:${port}`;
      assert.equal((await request(baseUrl, 'GET', `/api/users?pwd=${encodeURIComponent(generated)}`)).status, 200);
      assert.equal((await request(baseUrl, 'GET', '/api/users?pwd=wrong')).status, 401);

      service.signal('SIGINT');
      assert.deepEqual(await exitWithin(service, 15_000), { code: 0, signal: null });
      assert.equal((await service.logEntry('shutting down')).signal, 'SIGINT');
      assert.ok(!service.lines.some((line) => line.includes(generated)), 'the password is not in the log');
    } finally {
      await service.stop();
    }
  });
});

describe('an invalid configuration stops the start with one line naming the variable', () => {
  const rows = [
    { variable: 'PORT', value: 'abc' },
    { variable: 'PORT', value: '70000' },
    { variable: 'DB_PORT', value: 'x3306' },
    { variable: 'DB_NAME', value: 'bad-name' },
  ];
  for (const { variable, value } of rows) {
    test(`${variable}=${value} -> exit non-zero, one line on stderr naming ${variable}`, async () => {
      const env = { ...dbEnv(testDbConfig('usvc_never_used')), PORT: '0', ACCESS_PASSWORD: PASSWORD, [variable]: value };
      const result = await runScript('src/commands/start.ts', env);
      assert.notEqual(result.code, 0);
      const lines = result.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `one line: ${result.stderr}`);
      assert.match(lines[0]!, new RegExp(`\\b${variable}\\b`));
      assert.equal(result.stdout, '', 'nothing started, nothing logged');
    });
  }
});
