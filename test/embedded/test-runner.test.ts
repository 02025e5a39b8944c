import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { projectRoot } from '../../src/paths.js';
import { serversWith } from '../helpers/mariadb-processes.js';

// Only a network namespace of its own guarantees that nothing answers at 127.0.0.1:3306 (root only).
const isolated = process.getuid?.() === 0 && spawnSync('unshare', ['-n', 'true']).status === 0;
const coverage = process.env.NODE_V8_COVERAGE ?? mkdtempSync(join(tmpdir(), 'usvc-runner-coverage-'));
after(() => {
  if (coverage !== process.env.NODE_V8_COVERAGE) rmSync(coverage, { recursive: true, force: true });
});

interface Run {
  exit: Promise<number | null>;
  output: () => string;
  /** Resolves once the output contains `text`. */
  saw(text: string): Promise<void>;
  interrupt(): void;
}

/** `npm test <fixture>` where nothing listens at 127.0.0.1:3306 and no TEST_DB_* is set. */
function runIsolated(fixture: string): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_V8_COVERAGE: coverage };
  // NODE_TEST_CONTEXT would make the inner test runner report to this one instead of exiting with its result.
  for (const name of ['TEST_DB_HOST', 'TEST_DB_PORT', 'TEST_DB_USER', 'TEST_DB_PASSWORD', 'NODE_TEST_CONTEXT']) delete env[name];
  const child = spawn(
    'unshare',
    ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" --import tsx scripts/test.ts "$1"', process.execPath, fixture],
    // A process group of its own, as a shell gives a command: Ctrl-C signals the whole group.
    { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  const waiters: Array<() => void> = [];
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      for (const wake of waiters.splice(0)) wake();
      resolve(code);
    }),
  );
  return {
    exit,
    output: () => output,
    async saw(text) {
      while (!output.includes(text)) {
        if (child.exitCode !== null) throw new Error(`the run ended before "${text}":\n${output}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    interrupt: () => process.kill(-child.pid!, 'SIGINT'),
  };
}

function privateServerPort(output: string): number {
  const port = /a private server on 127\.0\.0\.1:(\d+)/.exec(output)?.[1];
  assert.ok(port, `the run names its private server:\n${output}`);
  return Number(port);
}

describe('npm test with nothing at 127.0.0.1:3306', { skip: !isolated && 'needs root and unshare -n' }, () => {
  test('starts a private server for the run, exports TEST_DB_* to the tests, and stops it when a test fails', async () => {
    const run = runIsolated('test/embedded/fixtures/fails-after-query.ts');
    assert.equal(await run.exit, 1, 'a failing test fails the run');
    assert.match(run.output(), /failing on purpose/, 'the test reached its failure after querying the server');
    assert.deepEqual(serversWith(`--port=${privateServerPort(run.output())}`), [], 'no server is left');
  });

  test('an interrupted run (Ctrl-C) stops its private server too', async () => {
    const run = runIsolated('test/embedded/fixtures/waits.ts');
    await run.saw('fixture: waiting');
    const port = privateServerPort(run.output());
    assert.equal(serversWith(`--port=${port}`).length, 1, 'the server runs while the tests do');
    run.interrupt();
    assert.equal(await run.exit, 130);
    assert.deepEqual(serversWith(`--port=${port}`), [], 'no server is left');
  });
});

describe('npm test with a TEST_DB_PORT that is no port', () => {
  for (const value of ['abc', '0', '70000', '33o6']) {
    test(`TEST_DB_PORT=${value} -> one line naming it, exit 1, no test run`, () => {
      const env: NodeJS.ProcessEnv = { ...process.env, TEST_DB_PORT: value, NODE_V8_COVERAGE: coverage };
      delete env.NODE_TEST_CONTEXT;
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test.ts', 'test/embedded/fixtures/waits.ts'], {
        cwd: projectRoot,
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(run.stdout, '', 'no test ran');
      assert.equal(run.stderr, `Cannot run the tests: TEST_DB_PORT must be a port number from 1 to 65535, got "${value}"\n`);
    });
  }
});

/** Whether a process runs: it exists and is not a zombie. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('npm test ends in bounded time', () => {
  function runOn(fixture: string, extraEnv: Record<string, string> = {}) {
    const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, NODE_V8_COVERAGE: coverage };
    delete env.NODE_TEST_CONTEXT;
    return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test.ts', fixture], { cwd: projectRoot, env, encoding: 'utf8', timeout: 120_000 });
  }

  test('a test file still running after TEST_FILE_LIMIT_S is ended and named, and the run fails', () => {
    const run = runOn('test/embedded/fixtures/waits.ts', { TEST_FILE_LIMIT_S: '2' });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /^test\/embedded\/fixtures\/waits\.ts was still running after 2 s: ended$/m);
    assert.match(run.stdout, /^Test summary: \d+ passed, [1-9]\d* failed$/m, 'the summary counts it as failed');
  });

  test('a process a test leaves running is ended when the tests are done, and named; the summary is the last output', () => {
    const run = runOn('test/embedded/fixtures/leaves-process.ts');
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const pid = Number(/fixture: left (\d+)/.exec(run.stdout)?.[1]);
    assert.ok(pid > 0, run.stdout);
    assert.match(run.stderr, new RegExp(`left running by the tests, now ended: sleep 3601 \\(${pid}\\)`));
    assert.ok(!running(pid), 'the process is gone (or only a zombie waiting for init)');
    assert.match(run.stdout, /Test summary: 1 passed, 0 failed\nSlowest files: test\/embedded\/fixtures\/leaves-process\.ts \d+ s\n$/);
  });
});
