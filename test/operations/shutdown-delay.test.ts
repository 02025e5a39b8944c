import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';

/**
 * SHUTDOWN_DELAY_S: after SIGTERM/SIGINT, `/readyz` answers 503 at once while everything else is
 * served as before, keep-alive included; then the drain. A delay of ten minutes keeps the checks
 * free of timing: a second signal ends it.
 */

interface Answer {
  status: number;
  connection: string | undefined;
  /** The request went over a connection an earlier one had opened. */
  reused: boolean;
  body: string;
}

/** One GET over node:http: on `agent`'s keep-alive connections, or on a new connection with `false`. */
function get(baseUrl: string, path: string, agent: Agent | false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { agent, timeout: 15_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reused: req.reusedSocket, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    req.end();
  });
}

const LONG_DELAY_S = '600';
const shuttingDown = JSON.stringify({ error: 'Shutting down' });

let db: TestDatabase;
const services: ChildService[] = [];
before(async () => {
  db = await createTestDatabase('shutdown_delay');
});
after(async () => {
  for (const service of services) await service.process.stop();
  await db.drop();
});

describe('SHUTDOWN_DELAY_S, one process', () => {
  test('during the delay: /readyz 503 "Shutting down", the API and /healthz 200 on the same keep-alive connection and on new ones; a second signal (SIGINT) skips the rest; exit 0', async () => {
    const service = await spawnService(db.config, { SHUTDOWN_DELAY_S: LONG_DELAY_S });
    services.push(service);
    const { baseUrl, process: child } = service;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      assert.equal((await get(baseUrl, '/api/users/1', agent)).status, 200);

      child.signal('SIGTERM');
      const stopping = await child.logEntry('shutting down');
      assert.deepEqual([stopping.signal, stopping.delayMs], ['SIGTERM', 600_000]);

      const readiness = await get(baseUrl, '/readyz', agent);
      assert.deepEqual([readiness.status, readiness.body, readiness.reused], [503, shuttingDown, true]);
      assert.notEqual(readiness.connection, 'close', 'the connection is kept alive');
      const read = await get(baseUrl, '/api/users/1', agent);
      assert.deepEqual([read.status, read.reused, read.connection], [200, true, 'keep-alive']);
      assert.equal((await get(baseUrl, '/api/users/1', false)).status, 200, 'a new connection is still accepted and served');
      assert.equal((await get(baseUrl, '/healthz', false)).status, 200, 'the process is alive: /healthz stays 200');
      assert.equal(child.entries().filter((entry) => entry.msg === 'draining').length, 0, 'not draining yet');

      child.signal('SIGINT');
      assert.equal((await child.logEntry('draining')).delaySkipped, true);
      assert.deepEqual(await child.exited, { code: 0, signal: null });
    } finally {
      agent.destroy();
    }
  });

  test('a delay that runs out: the process drains after it and exits 0', async () => {
    const service = await spawnService(db.config, { SHUTDOWN_DELAY_S: '1' });
    services.push(service);
    const { process: child } = service;
    child.signal('SIGTERM');
    assert.deepEqual(await child.exited, { code: 0, signal: null });
    const lines = child.entries().map((entry) => entry.msg);
    assert.ok(lines.indexOf('shutting down') < lines.indexOf('draining'), 'the delay starts, then the drain');
    assert.equal(child.entries().find((entry) => entry.msg === 'draining')?.delaySkipped, undefined, 'the delay ran its course');
  });
});

describe('SHUTDOWN_DELAY_S, WORKERS=2', () => {
  test('SIGTERM to the primary: every worker answers /readyz 503 and serves the API; a second SIGTERM to the primary ends every worker\'s delay; exit 0', async () => {
    const service = await spawnService(db.config, { WORKERS: '2', SHUTDOWN_DELAY_S: LONG_DELAY_S });
    services.push(service);
    const { baseUrl, process: child } = service;
    await pollUntil('both workers to listen', () => (child.entries().filter((entry) => entry.msg === 'listening').length === 2 ? true : undefined));

    child.signal('SIGTERM');
    await pollUntil('the primary and both workers to start their delay', () =>
      child.entries().filter((entry) => entry.msg === 'shutting down' && entry.delayMs === 600_000).length === 3 ? true : undefined,
    );
    // Each on a connection of its own: the primary hands them to the workers in turn.
    const readiness = await Promise.all(Array.from({ length: 6 }, () => get(baseUrl, '/readyz', false)));
    assert.deepEqual(readiness.map((answer) => [answer.status, answer.body]), readiness.map(() => [503, shuttingDown]));
    const reads = await Promise.all(Array.from({ length: 6 }, () => get(baseUrl, '/api/users/1', false)));
    assert.deepEqual(reads.map((answer) => answer.status), reads.map(() => 200));

    child.signal('SIGTERM');
    await pollUntil('both workers to drain at once', () =>
      child.entries().filter((entry) => entry.msg === 'draining' && entry.delaySkipped === true).length === 2 ? true : undefined,
    );
    assert.deepEqual(await child.exited, { code: 0, signal: null });
    assert.equal(child.entries().filter((entry) => entry.msg === 'worker died, replacing it').length, 0, 'no worker replaced while stopping');
  });

  test('a delay that runs out: every worker drains after it, the primary exits 0', async () => {
    const service = await spawnService(db.config, { WORKERS: '2', SHUTDOWN_DELAY_S: '1' });
    services.push(service);
    const { process: child } = service;
    await pollUntil('both workers to listen', () => (child.entries().filter((entry) => entry.msg === 'listening').length === 2 ? true : undefined));
    child.signal('SIGTERM');
    assert.deepEqual(await child.exited, { code: 0, signal: null });
    const draining = child.entries().filter((entry) => entry.msg === 'draining');
    assert.deepEqual(draining.map((entry) => entry.delaySkipped), [undefined, undefined], 'both workers waited out the delay');
  });
});
