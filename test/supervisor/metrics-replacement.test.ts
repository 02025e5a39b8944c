import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { portOf } from '../helpers/http.js';
import { counterSamples, gaugeNames, scrape, valueOf } from '../helpers/metrics.js';
import { pollUntil } from '../helpers/poll-until.js';
import { workerPids } from '../helpers/service-workers.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { connectionPerWorker, type WorkerConnection } from '../helpers/worker-connections.js';
import { lockUsersTable, sessionsWaitingForLock, type TableLock } from '../robustness/helpers/db-sessions.js';

/**
 * WORKERS=2 with METRICS=on and METRICS_PORT: a worker killed outright (kill -9) and replaced
 * must not take its counts out of the merge, or Prometheus reads every counter's drop as a reset
 * and its rate() jumps; its gauges, which describe the living, must go with it.
 */

let db: TestDatabase;
let service: ChildService;
let metricsUrl: string;
let lock: TableLock | undefined;
const connections: WorkerConnection[] = [];

before(async () => {
  db = await createTestDatabase('metrics_replacement');
  service = await spawnService(db.config, { WORKERS: '2', METRICS: 'on', METRICS_PORT: '0' });
  metricsUrl = `http://127.0.0.1:${String((await service.process.logEntry('metrics listening')).port)}/metrics`;
});
after(async () => {
  await lock?.release();
  for (const connection of connections) connection.close();
  await service?.process.stop();
  await db?.drop();
});

/** The workers' pids once `count` of them have logged 'schema ready' (they serve the API) and two are running. */
function listeningWorkers(count: number): Promise<number[]> {
  return pollUntil(`${count} 'schema ready' lines and two workers`, () => {
    const pids = workerPids(service.process.pid);
    const serving = service.process.entries().filter((entry) => entry.msg === 'schema ready').length;
    return serving >= count && pids.length === 2 ? pids : undefined;
  });
}

/** Every kind of request on one worker's connection, so that it has series of every route, status and store operation. */
async function traffic(connection: WorkerConnection, tag: string): Promise<void> {
  const created = await connection.send('POST', '/api/users', {}, { name: `Replaced ${tag}`, email: `replaced-${tag}@example.com` });
  assert.equal(created.status, 201);
  const path = String(created.headers.location);
  const answers: Array<[number, Promise<{ status: number }>]> = [
    [200, connection.send('GET', path)],
    [200, connection.send('PUT', path, {}, { name: `Renamed ${tag}`, email: `replaced-${tag}@example.com` })],
    [200, connection.send('GET', `/api/users?pwd=${TEST_PASSWORD}`)],
    [401, connection.send('GET', '/api/users?pwd=wrong')],
    [404, connection.send('GET', '/api/users/999999')],
    [404, connection.send('GET', '/no/such/path')],
    [200, connection.send('DELETE', path)],
  ];
  for (const [status, answer] of answers) assert.equal((await answer).status, status);
}

describe('WORKERS=2: kill -9 of a worker while METRICS=on', () => {
  test('after its replacement every counter and histogram series is at least what it was before; its gauges are gone', async () => {
    const workers = await listeningWorkers(2);
    connections.push(...(await connectionPerWorker(portOf(service.baseUrl), workers)));
    const [survivor, victim] = connections as [WorkerConnection, WorkerConnection];
    await traffic(survivor, 'survivor');
    await traffic(victim, 'victim');
    // Seen by the victim only: a series that lives on in the merge through its counts alone.
    assert.equal((await victim.send('POST', '/api/users', {}, { name: 'No email' })).status, 400);

    // A read held by a table lock: a database connection in use in the victim, and only there.
    lock = await lockUsersTable(db.config);
    const held = victim.send('GET', '/api/users/1').catch(() => 'ended with the worker');
    await pollUntil('the read to wait for the lock', async () => ((await sessionsWaitingForLock(db)).length === 1 ? true : undefined));
    const beforeKill = await scrape(metricsUrl);
    assert.equal(valueOf(beforeKill, 'db_pool_connections_in_use'), 1, 'the victim\'s held connection');
    const counted = counterSamples(beforeKill);
    assert.ok(valueOf(beforeKill, 'http_requests_total', { method: 'POST', route: '/api/users', status: '400' }) === 1);

    process.kill(workers[1]!, 'SIGKILL');
    assert.equal(await held, 'ended with the worker');
    const replaced = await listeningWorkers(3);
    assert.ok(!replaced.includes(workers[1]!), 'the victim was replaced');
    await lock.release();

    const afterKill = await pollUntil('the survivor\'s connections to be idle again', async () => {
      const families = await scrape(metricsUrl);
      return valueOf(families, 'db_pool_connections_in_use') === 0 ? families : undefined;
    });
    const now = counterSamples(afterKill);
    const wentBack = [...counted].filter(([series, value]) => !((now.get(series) ?? -1) >= value));
    assert.deepEqual(wentBack.map(([series, value]) => `${series} ${value} -> ${now.get(series) ?? 'gone'}`), [], `${wentBack.length} of ${counted.size} series went back`);
    assert.ok(counted.size > 100, `every route, status, histogram bucket and store operation was compared (${counted.size} series)`);
    assert.deepEqual(gaugeNames(afterKill).sort(), gaugeNames(beforeKill).sort(), 'the gauges are still shown, for the living');
    assert.equal(valueOf(afterKill, 'db_pool_waiting'), 0);

    // The newcomer's requests add to what the dead worker counted.
    const reads = { method: 'GET', route: '/api/users/{id}', status: '404' };
    const fresh = await connectionPerWorker(portOf(service.baseUrl), replaced);
    connections.push(...fresh);
    const newcomer = fresh[replaced.findIndex((pid) => !workers.includes(pid))]!;
    assert.equal((await newcomer.send('GET', '/api/users/999999')).status, 404);
    assert.equal(valueOf(await scrape(metricsUrl), 'http_requests_total', reads), valueOf(afterKill, 'http_requests_total', reads) + 1);
  });
});
