import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { projectRoot } from '../../src/paths.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';
import { childEnv, dbEnv } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';

/** util-linux's `script` runs a command on a terminal of its own (a pseudo-terminal), as a developer's shell does. */
const scriptTool = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('ctrl_c');
});
after(() => db.drop());

test('Ctrl-C at a terminal stops at once: no SHUTDOWN_DELAY_S wait (that is for load balancers), exit 0', { skip: scriptTool === undefined && 'util-linux script is not installed' }, async () => {
  const command = `exec "${process.execPath}" --import tsx src/commands/start.ts`;
  const child = spawn(scriptTool!, ['-qec', command, '/dev/null'], {
    cwd: projectRoot,
    env: childEnv({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, SHUTDOWN_DELAY_S: '600', LOG_FORMAT: 'json' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const entries = () =>
    output.split(/\r?\n/).flatMap((line) => {
      try {
        // The terminal echoes the interrupt as ^C before the next line.
        return [JSON.parse(line.replace(/^\^C/, '')) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  try {
    await pollUntil('schema ready', () => (entries().some((entry) => entry.msg === 'schema ready') ? true : undefined), { timeoutMs: 30_000 });
    // The terminal's interrupt character: the line discipline sends SIGINT to the service, as Ctrl-C does.
    child.stdin!.write('\x03');
    // Bounded, so that a service waiting out its delay fails the test rather than hanging it.
    const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 60_000).unref())]);
    assert.equal(code, 0);
    const shutdown = entries().find((entry) => entry.msg === 'shutting down');
    assert.equal(shutdown?.signal, 'SIGINT', output.slice(-3000));
    assert.equal(shutdown?.delayMs, 0, 'no delay at a terminal, though SHUTDOWN_DELAY_S=600');
    assert.equal(entries().at(-1)?.msg, 'shutdown complete');
  } finally {
    child.kill('SIGKILL');
  }
});
