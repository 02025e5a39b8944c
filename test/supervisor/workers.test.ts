import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ServiceProcess, spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePorts } from '../helpers/free-ports.js';
import { scrape, valueOf } from '../helpers/metrics.js';
import { pollUntil } from '../helpers/poll-until.js';
import { dbEnv } from '../helpers/run-script.js';
import { workerPids } from '../helpers/service-workers.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { lockUsersTable, serviceSessions, sessionsWaitingForLock, type TableLock } from '../robustness/helpers/db-sessions.js';

/** One request on a connection of its own, so that the primary hands each to the next worker in turn. */
function send(baseUrl: string, method: string, path: string, json?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const req = httpRequest(`${baseUrl}${path}`, { method, agent: false, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let db: TestDatabase;
const services: ChildService[] = [];
let lock: TableLock | undefined;
before(async () => {
  db = await createTestDatabase('workers');
});
after(async () => {
  await lock?.release();
  for (const service of services) await service.process.stop();
  await db.drop();
});

describe('WORKERS=2', () => {
  test('a primary and two workers share one port; the schema is set up once, by the primary; a generated password holds in every worker', async () => {
    const service = await spawnService(db.config, { WORKERS: '2', ACCESS_PASSWORD: '' });
    services.push(service);
    const { baseUrl, process: child } = service;
    assert.equal(workerPids(child.pid).length, 2, 'two worker processes');
    await pollUntil('both workers to listen', () => (child.entries().filter((entry) => entry.msg === 'listening').length === 2 ? true : undefined));
    const ports = new Set(child.entries().filter((entry) => entry.msg === 'listening').map((entry) => entry.port));
    assert.equal(ports.size, 1, 'both listen on the same port');
    const schemaLines = child.entries().filter((entry) => entry.msg === 'users table created and seeded' || entry.msg === 'users table found');
    assert.equal(schemaLines.length, 1, 'schema set-up ran once');

    const generated = child.stderr.split('\n').filter((line) => line.includes('"generatedPassword"'));
    assert.equal(generated.length, 1, 'the generated password is printed once, by the primary only');
    const password = String((JSON.parse(generated[0]!) as { generatedPassword: string }).generatedPassword);
    const answers = await Promise.all(Array.from({ length: 12 }, () => send(baseUrl, 'GET', `/api/users?pwd=${encodeURIComponent(password)}`)));
    assert.deepEqual(answers.map((answer) => answer.status), answers.map(() => 200), 'every worker accepts the generated password');
    await child.stop();
  });

  test('DB_POOL_SIZE caps each worker\'s connections: 40 concurrent deletes through two workers with DB_POOL_SIZE=1 hold at most 2', async () => {
    const service = await spawnService(db.config, { WORKERS: '2', DB_POOL_SIZE: '1' });
    services.push(service);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => send(service.baseUrl, 'DELETE', `/api/users/${1_000_000 + i}`)));
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([404]), 'every delete answered');
    // Pool connections stay open while idle (60 s), so more than 2 would still be counted here.
    await pollUntil('the service to hold 1 or 2 sessions (those of an earlier test closed)', async () => {
      const count = (await serviceSessions(db)).length;
      return count >= 1 && count <= 2 ? true : undefined;
    });
    await service.process.stop();
  });

  test('WORKERS x DB_POOL_SIZE above half the server\'s max_connections is warned about at start', async () => {
    const large = await spawnService(db.config, { WORKERS: '2', DB_POOL_SIZE: '1000' });
    services.push(large);
    const warning = await pollUntil('the warning', () => large.process.entries().find((entry) => entry.msg === 'WORKERS x DB_POOL_SIZE may reach max_connections'));
    assert.equal(warning.needed, 2000);
    assert.equal(typeof warning.maxConnections, 'number');
    await large.process.stop();
  });

  test('METRICS=on: /metrics answered by either worker counts the requests both served; METRICS_PORT is the primary\'s', async () => {
    const [metricsPort] = await freePorts(1);
    const service = await spawnService(db.config, { WORKERS: '2', METRICS: 'on', METRICS_PORT: String(metricsPort) });
    services.push(service);
    // Each on a connection of its own: the primary hands them to the workers in turn.
    for (let i = 0; i < 12; i++) assert.equal((await send(service.baseUrl, 'GET', '/api/users/1')).status, 200);
    const reads = { method: 'GET', route: '/api/users/{id}', status: '200' };
    const families = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(valueOf(families, 'http_requests_total', reads), 12);
    // Each worker alone holds well over 20 MB: the merge of both is above 40 MB.
    assert.ok(valueOf(families, 'process_resident_memory_bytes') > 40 * 1024 * 1024, 'both workers\' figures are merged');
    assert.equal((await send(service.baseUrl, 'GET', '/metrics')).status, 404, 'not on the API port');
    await service.process.stop();
  });

  test('SIGTERM to the primary: requests in flight on both workers complete, every worker drains, the primary exits 0', async () => {
    const service = await spawnService(db.config, { WORKERS: '2' });
    services.push(service);
    const { baseUrl, process: child } = service;
    lock = await lockUsersTable(db.config);
    const inFlight: Array<Promise<{ status: number; body: string }>> = [];
    // The primary hands connections to the workers in turn; a create that reaches a worker already
    // waiting joins its next batch instead of opening a session, so creates go until both workers wait.
    await pollUntil(
      'creates to wait on both workers',
      async () => {
        if ((await sessionsWaitingForLock(db)).length >= 2) return true;
        const i = inFlight.length;
        assert.ok(i < 10, 'creates reached both workers');
        inFlight.push(send(baseUrl, 'POST', '/api/users', { name: `In flight ${i}`, email: `workers-inflight-${i}@example.com` }));
        await pollUntil('the create to wait inside the service', async () => ((await sessionsWaitingForLock(db)).length >= 1 ? true : undefined));
        return undefined;
      },
      { intervalMs: 200 },
    );

    child.signal('SIGTERM');
    await pollUntil('the primary and both workers to start shutting down', () =>
      child.entries().filter((entry) => entry.msg === 'shutting down').length === 3 ? true : undefined,
    );
    await lock.release();
    for (const answer of await Promise.all(inFlight)) assert.equal(answer.status, 201, answer.body);
    assert.deepEqual(await child.exited, { code: 0, signal: null });
    assert.equal(child.entries().filter((entry) => entry.msg === 'worker died, replacing it').length, 0, 'no worker replaced while stopping');
    const stored = await db.query<unknown[]>("SELECT id FROM users WHERE email LIKE 'workers-inflight-%'");
    assert.equal(stored.length, inFlight.length, 'every create acknowledged during the drain is stored');
  });

  test('a port taken after the start checked it: the primary exits 1 instead of replacing workers forever', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    // The start's own check would refuse the taken port before forking (start-refusals.test.ts): this entry skips it.
    const vars = { ...dbEnv(db.config), WORKERS: '2', PORT: String(port), HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD };
    const child = new ServiceProcess(vars, 'test/supervisor/fixtures/start-without-listen-check.ts');
    try {
      const exit = await Promise.race([
        child.exited,
        new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000)),
      ]);
      assert.deepEqual(exit, { code: 1, signal: null });
      assert.ok(child.entries().some((entry) => entry.msg === 'a worker could not start, stopping'));
    } finally {
      await child.stop();
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
