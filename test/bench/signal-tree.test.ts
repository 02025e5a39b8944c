import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { test } from 'node:test';
import { signalTree } from '../../bench/proc.js';

/** The process's state letter from /proc (T: stopped). */
function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('a side waiting while another is measured is stopped with the processes it started, and goes on afterwards', async (t) => {
  // A parent that starts a child of its own, as a service with WORKERS=2 starts its workers.
  const script = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    console.log(c.pid); setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = [parent.pid!];
  // Each ended by SIGKILL, which needs no handler and reaches a stopped process: the parent's child is no child of this one.
  t.after(() => {
    for (const pid of started) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
  const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
  const child = Number(line.toString().trim());
  started.push(child);

  signalTree(parent.pid!, 'SIGSTOP');
  await until(() => stateOf(parent.pid!) === 'T' && stateOf(child) === 'T');
  assert.equal(stateOf(parent.pid!), 'T');
  assert.equal(stateOf(child), 'T');

  signalTree(parent.pid!, 'SIGCONT');
  await until(() => stateOf(parent.pid!) !== 'T' && stateOf(child) !== 'T');
  assert.notEqual(stateOf(child), 'T');
});
