import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { projectRoot } from '../src/paths.js';
import { chooseTestDatabase, TestDatabaseError, type TestDatabase } from './test-database.js';
import { endLeftovers, watchTestFiles } from './test-processes.js';

/**
 * `npm test`: every test/**\/*.test.ts (or the files given) under c8 and Node's test runner, four
 * files at a time, against the server chooseTestDatabase() picks. A private server started for the
 * run is stopped at the end, whether the tests passed, failed or the run was interrupted.
 * Every process the run starts carries RUN_MARK in its environment: a test file still running after
 * FILE_LIMIT_MS is ended and named, and whatever the tests left running is ended when they are done,
 * so the run ends in bounded time. Its last lines say which tests failed and which files were slowest.
 */
// A folder given stands for the test files under it (Node 20's test runner takes no folders).
const files = process.argv.slice(2).length > 0 ? process.argv.slice(2).flatMap(filesOf) : testFiles('test');

const RUN_MARK = 'USER_SERVICE_TEST_RUN';
const runId = randomBytes(8).toString('hex');
// TEST_FILE_LIMIT_S: for the runner's own test.
const FILE_LIMIT_MS = Number(process.env.TEST_FILE_LIMIT_S ?? 25 * 60) * 1000;
const say = (line: string) => process.stderr.write(`${line}\n`);

let interrupted: NodeJS.Signals | undefined;
let child: ChildProcess | undefined;
// Registered before the database starts, so that an early Ctrl-C still stops it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    interrupted ??= signal;
    signalTests(signal);
    // A test run that ignores the signal is ended, so that the database can still be stopped.
    setTimeout(() => signalTests('SIGKILL'), 10_000).unref();
  });
}

let database: TestDatabase;
try {
  database = await chooseTestDatabase();
} catch (error) {
  if (!(error instanceof TestDatabaseError)) throw error;
  process.stderr.write(`Cannot run the tests: ${error.message}\n`);
  process.exit(1);
}
process.stderr.write(`Tests use the database server at ${database.shown}\n`);
const summaryDir = mkdtempSync(join(tmpdir(), 'test-summary-'));
const summaryFile = join(summaryDir, 'summary.txt');
const stopWatch = watchTestFiles(RUN_MARK, runId, FILE_LIMIT_MS, say);
const code = interrupted ? 1 : await runTests(database.env, summaryFile);
stopWatch();
endLeftovers(RUN_MARK, runId, say);
if (existsSync(summaryFile)) process.stdout.write(readFileSync(summaryFile, 'utf8'));
rmSync(summaryDir, { recursive: true, force: true });
await database.stop();
process.exit(interrupted ? 128 + (constants.signals[interrupted] ?? 0) : code);

function runTests(databaseEnv: Record<string, string>, summaryFile: string): Promise<number> {
  const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${join(projectRoot, 'scripts', 'test-summary-reporter.mjs')}`, `--test-reporter-destination=${summaryFile}`];
  const nodeTest = [process.execPath, '--import', 'tsx', '--test', '--test-concurrency=4', ...reporters, ...files];
  // Already under coverage (a test of this runner): the outer c8 collects it.
  const [command, ...args] = process.env.NODE_V8_COVERAGE ? nodeTest : [join(projectRoot, 'node_modules', '.bin', 'c8'), ...nodeTest];
  // A process group of its own: a signal reaches every test process, wherever it came from.
  child = spawn(command!, args, { cwd: projectRoot, env: { ...process.env, ...databaseEnv, [RUN_MARK]: runId }, stdio: 'inherit', detached: true });
  return new Promise((resolve) => {
    child!.once('error', (error) => {
      process.stderr.write(`Could not run the tests: ${error.message}\n`);
      resolve(1);
    });
    child!.once('exit', (exitCode) => resolve(exitCode ?? 1));
  });
}

function signalTests(signal: NodeJS.Signals): void {
  if (child?.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group has ended meanwhile.
  }
}

function filesOf(argument: string): string[] {
  return existsSync(resolve(projectRoot, argument)) && statSync(resolve(projectRoot, argument)).isDirectory() ? testFiles(argument) : [argument];
}

function testFiles(dir: string): string[] {
  return readdirSync(join(projectRoot, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => join(dir, file))
    .sort();
}
