import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ServiceProcess } from '../helpers/child-service.js';
import { embeddedWorkDir, isRunning, serversOn } from '../helpers/mariadb-processes.js';
import { pollUntil } from '../helpers/poll-until.js';
import { connectionOwner, workerPids } from '../helpers/service-workers.js';

const PASSWORD = 'workers-embedded-pass';
const { workDir, dataDir } = embeddedWorkDir('usvc-workers-embedded-');

interface Started {
  service: ServiceProcess;
  port: number;
  workers: number[];
}

/** `WORKERS=2 npm start` in workDir with no DB_HOST set: two workers on the embedded database. */
async function startService(t: { after(fn: () => Promise<unknown>): void }): Promise<Started> {
  const service = new ServiceProcess(
    { PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: PASSWORD, WORKERS: '2' },
    'src/commands/start.ts',
    { cwd: workDir, args: ['--embedded-by-default'] },
  );
  t.after(() => service.stop());
  const listening = await pollUntil(
    'both workers to listen',
    () => {
      const lines = service.entries().filter((entry) => entry.msg === 'listening');
      return lines.length === 2 ? lines : undefined;
    },
    { timeoutMs: 90_000 },
  );
  for (const line of listening) assert.equal(line.db, 'embedded: ./data/mysql', 'every start-up line names the database');
  await pollUntil('both workers to serve the API', () => (service.entries().filter((entry) => entry.msg === 'schema ready').length === 2 ? true : undefined), { timeoutMs: 90_000 });
  const workers = workerPids(service.pid);
  assert.equal(workers.length, 2, 'two worker processes');
  assert.equal(serversOn(dataDir).length, 1, 'one embedded server, started by the primary');
  return { service, port: Number(listening[0]!.port), workers };
}

interface Answer {
  status: number;
  json: unknown;
  location: string | undefined;
}

/** A keep-alive connection of its own, and the worker that holds it. */
class Connection {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  /** The worker's pid, once known. */
  owner: number | undefined;
  constructor(private readonly started: Started) {}

  send(method: string, path: string, json?: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const body = json === undefined ? undefined : JSON.stringify(json);
      const headers = body === undefined ? {} : { 'content-type': 'application/json' };
      const req = httpRequest({ host: '127.0.0.1', port: this.started.port, method, path, agent: this.agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text === '' ? undefined : JSON.parse(text), location: res.headers.location }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}

/** Fresh connections until one is held by each worker (the primary hands them out in turn). */
async function oneConnectionPerWorker(started: Started): Promise<Connection[]> {
  const byWorker = new Map<number, Connection>();
  for (let i = 0; byWorker.size < 2; i++) {
    assert.ok(i < 20, 'connections reached both workers');
    const connection = new Connection(started);
    assert.equal((await connection.send('GET', '/healthz')).status, 200);
    const owner = await pollUntil('the connection\'s worker', () => connectionOwner(started.workers, started.port, localPortOf(connection)));
    connection.owner = owner;
    if (byWorker.has(owner)) connection.agent.destroy();
    else byWorker.set(owner, connection);
  }
  return [...byWorker.values()];
}

function localPortOf(connection: Connection): number {
  const sockets = Object.values(connection.agent.freeSockets).flat();
  return sockets[0]?.localPort ?? 0;
}

async function stopService(service: ServiceProcess): Promise<void> {
  service.signal('SIGTERM');
  assert.deepEqual(await service.exited, { code: 0, signal: null }, 'SIGTERM ends the service cleanly');
  assert.deepEqual(serversOn(dataDir), [], 'no database process is left after the stop');
}

describe('WORKERS=2 under npm start: two workers on one embedded database', { concurrency: false }, () => {
  let createdId = 0;

  test('both workers answer; a create through one is read through the other; SIGTERM stops the workers, then the database, and exits 0', async (t) => {
    const started = await startService(t);
    const [first, second] = await oneConnectionPerWorker(started);
    assert.notEqual(first!.owner, second!.owner, 'two connections, two workers');
    const created = await first!.send('POST', '/api/users', { name: 'Shared', email: 'shared@example.com' });
    assert.equal(created.status, 201);
    createdId = Number(/^\/api\/users\/(\d+)$/.exec(created.location ?? '')?.[1]);
    const read = await second!.send('GET', `/api/users/${createdId}`);
    assert.equal(read.status, 200);
    assert.equal((read.json as { name: string }).name, 'Shared');
    first!.agent.destroy();
    second!.agent.destroy();

    const schemaLines = started.service.entries().filter((entry) => entry.msg === 'users table created and seeded' || entry.msg === 'users table found');
    assert.equal(schemaLines.length, 1, 'schema set-up ran once, by the primary');
    await stopService(started.service);
    const shutdown = started.service.entries().filter((entry) => entry.msg === 'shutting down');
    assert.equal(shutdown.length, 3, 'the primary and both workers shut down');
  });

  test('a restart finds the user created before', async (t) => {
    assert.ok(createdId > 0, 'the first test created a user');
    const started = await startService(t);
    const [connection] = await oneConnectionPerWorker(started);
    const read = await connection!.send('GET', `/api/users/${createdId}`);
    assert.equal(read.status, 200);
    assert.equal((read.json as { name: string }).name, 'Shared');
    const list = await connection!.send('GET', `/api/users?pwd=${PASSWORD}`);
    assert.equal((list.json as unknown[]).length, 11, 'the ten seed users and the one created, once each');
    connection!.agent.destroy();
    await stopService(started.service);
  });

  test('a crashed primary (SIGKILL): its workers go, and the server left behind does not block the next start', async (t) => {
    const crashed = await startService(t);
    crashed.service.signal('SIGKILL');
    await crashed.service.exited;
    await pollUntil('the orphaned workers to exit', () => (crashed.workers.every((pid) => !isRunning(pid)) ? true : undefined), { timeoutMs: 30_000 });
    const restarted = await startService(t);
    const [connection] = await oneConnectionPerWorker(restarted);
    assert.equal((await connection!.send('GET', '/api/users/1')).status, 200);
    connection!.agent.destroy();
    await stopService(restarted.service);
  });

  test('the embedded server dying under the workers: the primary says so once, stops the workers and exits 1', async (t) => {
    const { service, workers } = await startService(t);
    for (const pid of serversOn(dataDir)) process.kill(pid, 'SIGKILL');
    assert.deepEqual(await service.exited, { code: 1, signal: null });
    const lines = service.entries().filter((line) => line.msg === 'the embedded database stopped unexpectedly');
    assert.equal(lines.length, 1, 'one line');
    assert.equal(lines[0]!.log, join(dataDir, 'server.log'), 'the line names the server log');
    assert.ok(workers.every((pid) => !isRunning(pid)), 'no worker outlives the primary');
  });
});
