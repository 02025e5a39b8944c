import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../src/paths.js';
import { chooseTestDatabase } from './test-database.js';

/**
 * `npm test`: every test/**\/*.test.ts (or the files given) under c8 and Node's test runner, four
 * files at a time, against the server chooseTestDatabase() picks. A private server started for the
 * run is stopped at the end, whether the tests passed, failed or the run was interrupted.
 */
const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : testFiles('test');
const database = await chooseTestDatabase();
process.stderr.write(`Tests use the database server at ${database.shown}\n`);

const c8 = join(projectRoot, 'node_modules', '.bin', 'c8');
const child = spawn(c8, [process.execPath, '--import', 'tsx', '--test', '--test-concurrency=4', ...files], {
  cwd: projectRoot,
  env: { ...process.env, ...database.env },
  stdio: 'inherit',
});

let interrupted: NodeJS.Signals | undefined;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    interrupted ??= signal;
    child.kill(signal);
    // A test run that ignores the signal is ended, so that the database can still be stopped.
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

const code = await new Promise<number>((resolve) => {
  child.once('error', (error) => {
    process.stderr.write(`Could not run the tests: ${error.message}\n`);
    resolve(1);
  });
  child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128 + signalNumber(signal))));
});
await database.stop();
process.exit(interrupted ? 128 + signalNumber(interrupted) : code);

function testFiles(dir: string): string[] {
  return readdirSync(join(projectRoot, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => join(dir, file))
    .sort();
}

function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 1;
}
