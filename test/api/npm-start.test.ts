import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { projectRoot } from '../../src/paths.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';
import { childEnv, dbEnv } from '../helpers/run-script.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('npm_start');
});
after(() => db.drop());

/** npm itself: the one running this suite when there is one, else the one on PATH. */
function npm(args: string[], env: NodeJS.ProcessEnv) {
  const npmCli = process.env.npm_execpath;
  const [command, prefix] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli]] : ['npm', []];
  // A process group of its own, so that whatever it started can be removed at the end if it outlived npm.
  return spawn(command, [...prefix, ...args], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

test('SIGTERM sent to `npm start` reaches the service: it drains and exits, and nothing keeps the port', async () => {
  const child = npm(['start'], childEnv({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: 'npm-start-secret' }));
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const entries = (): Array<Record<string, unknown>> =>
    stdout.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  try {
    const listening = await pollUntil('the listening line', async () => entries().find((entry) => entry.msg === 'listening'), {
      timeoutMs: 30_000,
    });
    const port = Number(listening.port);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);

    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 20_000).unref())]);
    assert.notEqual(code, 'running', 'npm exited');
    const shutdown = entries().find((entry) => entry.msg === 'shutting down');
    assert.equal(shutdown?.signal, 'SIGTERM', 'the service itself received the signal and drained');
    assert.equal(await pollUntil('the port to close', async () => ((await refused(port)) ? true : undefined), { timeoutMs: 10_000 }), true);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The whole group is gone already.
    }
  }
});

test('`npm start --silent` with LOG_FORMAT=json: every stdout line is JSON, the last saying the shutdown is complete; npm says nothing of its own', async () => {
  const child = npm(['start', '--silent'], childEnv({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: 'npm-start-secret', LOG_FORMAT: 'json' }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  try {
    await pollUntil('the schema ready line', async () => (stdout.includes('"msg":"schema ready"') ? true : undefined), { timeoutMs: 30_000 });
    child.kill('SIGTERM');
    assert.equal(await closed, 0);
    const lines = stdout.split('\n').filter((line) => line !== '');
    assert.ok(lines.length >= 2, stdout);
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not a JSON line: ${JSON.stringify(line)}`);
    assert.equal((JSON.parse(lines.at(-1)!) as { msg: string }).msg, 'shutdown complete');
    assert.doesNotMatch(stderr, /> user-service@/, 'no banner');
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The whole group is gone already.
    }
  }
});

/** npm run in the project, to its end. */
async function npmRun(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = npm(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  return { code, stdout, stderr };
}

test('`npm start --silent` that cannot start: exit 1, and its one line is all there is on stderr, nothing on stdout', async () => {
  const { code, stdout, stderr } = await npmRun(['start', '--silent'], childEnv({ ...dbEnv(db.config), PORT: '0', HOST: 'not a host', LOG_FORMAT: 'json' }));
  assert.equal(code, 1);
  assert.match(stderr, /^Invalid configuration: HOST must be .*"not a host"\n$/);
  assert.equal(stdout, '');
});

test('`npm start` that cannot start keeps npm\'s own behaviour: the one line on stderr, said once, and no JSON object from npm anywhere', async () => {
  const { code, stdout, stderr } = await npmRun(['start'], childEnv({ ...dbEnv(db.config), PORT: '0', HOST: 'not a host', LOG_FORMAT: 'json' }));
  assert.equal(code, 1);
  assert.equal(stderr.match(/Invalid configuration: HOST must be/g)?.length, 1, 'said once');
  assert.doesNotMatch(`${stdout}${stderr}`, /"error":\s*\{/, 'npm answers in text, not JSON');
});

test('`npm run nosuch`: npm says once, on stderr, that there is no such script, exit 1', async () => {
  const { code, stderr } = await npmRun(['run', 'nosuch'], childEnv({}));
  assert.equal(code, 1);
  assert.equal(stderr.match(/Missing script: "nosuch"/g)?.length, 1);
});
