import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { tellWorker } from '../../src/ipc/tell-worker.js';

// cluster.Worker wraps a child process with an IPC channel, as the primary's workers are wrapped.
const WorkerOf = (cluster as unknown as { Worker: new (options: { id: number; process: unknown }) => Worker }).Worker;

test('a message to a worker that died before the primary noticed is dropped: no error event, which would end the primary', async () => {
  const child = fork('worker', [], { execArgv: ['--eval', "process.send('ready'); setInterval(() => {}, 1000)"] });
  await once(child, 'message');
  const worker = new WorkerOf({ id: 1, process: child });
  const errors: unknown[] = [];
  worker.on('error', (error) => errors.push(error));
  child.kill('SIGKILL');
  // The event loop is held while the process dies, so the channel still looks connected when the message is written.
  const until = Date.now() + 200;
  while (Date.now() < until);
  assert.equal(worker.isConnected(), true);
  tellWorker(worker, { type: 'schema-ready' });
  await once(child, 'exit');
  await sleep(50);
  assert.deepEqual(errors, []);
});

test('a message to a live worker arrives', async () => {
  const child = fork('worker', [], { execArgv: ['--eval', "process.on('message', (m) => { process.send(m); process.exit(0); }); process.send('ready')"] });
  await once(child, 'message');
  tellWorker(new WorkerOf({ id: 2, process: child }), { type: 'schema-ready' });
  const [echoed] = await once(child, 'message');
  assert.deepEqual(echoed, { type: 'schema-ready' });
});
