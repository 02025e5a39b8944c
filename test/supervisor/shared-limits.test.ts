import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { portOf } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { workerPids } from '../helpers/service-workers.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { connectionPerWorker, WorkerConnection, type WorkerAnswer } from '../helpers/worker-connections.js';

/**
 * Both limits hold for the whole service under WORKERS=2: the primary counts for both workers.
 * Behind a trusted proxy, so that each test is a client address of its own.
 */

let db: TestDatabase;
/** The production guessing limit: 10 wrong passwords per 60 s. */
let guessing: ChildService;
/** RATE_LIMIT=20/1h. */
let limited: ChildService;

/** The pids of the service's two workers, once both listen. */
async function twoWorkers(service: ChildService): Promise<number[]> {
  await pollUntil('both workers to listen', () =>
    service.process.entries().filter((entry) => entry.msg === 'listening').length >= 2 ? true : undefined,
  );
  const pids = workerPids(service.process.pid);
  assert.equal(pids.length, 2, 'two worker processes');
  return pids;
}

before(async () => {
  db = await createTestDatabase('shared_limits');
  [guessing, limited] = await Promise.all([
    spawnService(db.config, { WORKERS: '2', TRUST_PROXY: '1' }),
    spawnService(db.config, { WORKERS: '2', TRUST_PROXY: '1', RATE_LIMIT: '20/1h' }),
  ]);
});
after(async () => {
  await Promise.all([guessing?.process.stop(), limited?.process.stop()]);
  await db?.drop();
});

const list = (connection: WorkerConnection, password: string, client: string): Promise<WorkerAnswer> =>
  connection.send('GET', `/api/users?pwd=${encodeURIComponent(password)}`, { 'x-forwarded-for': client });

function assertBlocked(answer: WorkerAnswer): void {
  assert.equal(answer.status, 429);
  assert.deepEqual(answer.json, { error: 'Too many failed attempts' });
  const retryAfter = Number(answer.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
}

/** `RateLimit: "default";r=<r>;t=<t>`'s r. */
function remainingOf(answer: WorkerAnswer): number {
  const match = /^"default";r=(\d+);t=\d+$/.exec(String(answer.headers.ratelimit));
  assert.ok(match, `RateLimit: ${String(answer.headers.ratelimit)}`);
  return Number(match[1]);
}

describe('WORKERS=2: 10 wrong passwords within 60 s from one address, counted across both workers', () => {
  test('wrong passwords alternating between the workers: ten are 401, the 11th is 429 on either worker, the right one too', async () => {
    const [first, second] = await connectionPerWorker(portOf(guessing.baseUrl), await twoWorkers(guessing));
    try {
      const client = '198.51.100.1';
      for (let i = 0; i < 10; i++) {
        const answer = await list(i % 2 === 0 ? first! : second!, `wrong-${i}`, client);
        assert.equal(answer.status, 401, `failure ${i + 1}, on worker ${(i % 2) + 1}, is an ordinary 401`);
      }
      assertBlocked(await list(first!, 'wrong-10', client));
      assertBlocked(await list(second!, 'wrong-11', client));
      assertBlocked(await list(first!, TEST_PASSWORD, client));
      assertBlocked(await list(second!, TEST_PASSWORD, client));
      assert.equal((await list(second!, TEST_PASSWORD, '198.51.100.2')).status, 200, 'another address is not affected');
      const blockLines = () => guessing.process.entries().filter((entry) => entry.msg === 'address blocked for guessing the list password' && entry.address === client);
      // The primary's line reaches stdout a moment after the answer that its block caused.
      const blocks = await pollUntil('the block to be logged', () => (blockLines().length > 0 ? blockLines() : undefined));
      assert.equal(blocks.length, 1, 'the block is logged once, by the primary, not by each worker');
      assert.equal(blocks[0]!.windowS, 60);
    } finally {
      first?.close();
      second?.close();
    }
  });

  test('24 wrong passwords racing on fresh connections to both workers: exactly 10 are 401 and 14 are 429', async () => {
    const workers = await twoWorkers(guessing);
    const connections = Array.from({ length: 24 }, () => new WorkerConnection(portOf(guessing.baseUrl)));
    try {
      const answers = await Promise.all(connections.map((connection, i) => list(connection, `racing-${i}`, '198.51.100.3')));
      const statuses = answers.map((answer) => answer.status);
      assert.equal(statuses.filter((status) => status === 401).length, 10, String(statuses));
      assert.equal(statuses.filter((status) => status === 429).length, 14, String(statuses));
      const owners = new Set(await Promise.all(connections.map((connection) => connection.owner(workers))));
      assert.equal(owners.size, 2, 'both workers answered some');
    } finally {
      for (const connection of connections) connection.close();
    }
  });

  test('nine wrong passwords on both workers, then the right one -> 200, and the count starts again', async () => {
    const [first, second] = await connectionPerWorker(portOf(guessing.baseUrl), await twoWorkers(guessing));
    try {
      const client = '198.51.100.4';
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 9; i++) assert.equal((await list(i % 2 === 0 ? first! : second!, 'wrong', client)).status, 401);
        assert.equal((await list(second!, TEST_PASSWORD, client)).status, 200, `round ${round + 1}`);
      }
    } finally {
      first?.close();
      second?.close();
    }
  });
});

describe('WORKERS=2: a worker started after a block', () => {
  test('a worker that replaced one that died refuses an address blocked before it started, the right password too', async () => {
    const workers = await twoWorkers(guessing);
    const [first] = await connectionPerWorker(portOf(guessing.baseUrl), workers);
    const client = '198.51.100.5';
    for (let i = 0; i < 10; i++) assert.equal((await list(first!, 'wrong', client)).status, 401);
    first!.close();

    process.kill(workers[1]!, 'SIGKILL');
    const replaced = await pollUntil('the dead worker to be replaced and serve', () => {
      const pids = workerPids(guessing.process.pid);
      const serving = guessing.process.entries().filter((entry) => entry.msg === 'schema ready').length;
      return pids.length === 2 && !pids.includes(workers[1]!) && serving === 3 ? pids : undefined;
    });
    const connections = await connectionPerWorker(portOf(guessing.baseUrl), replaced);
    try {
      const newcomer = connections[replaced.findIndex((pid) => !workers.includes(pid))]!;
      assertBlocked(await list(newcomer, TEST_PASSWORD, client));
    } finally {
      for (const connection of connections) connection.close();
    }
  });
});

describe('WORKERS=2: RATE_LIMIT=20/1h counts one allowance per client across both workers', () => {
  test('20 requests alternating between the workers are admitted with r counting down 19..0; the 21st is 429 on either worker', async () => {
    const [first, second] = await connectionPerWorker(portOf(limited.baseUrl), await twoWorkers(limited));
    try {
      const client = { 'x-forwarded-for': '198.51.100.20' };
      const remaining: number[] = [];
      for (let i = 0; i < 20; i++) {
        const answer = await (i % 2 === 0 ? first! : second!).send('GET', '/api/users/1', client);
        assert.equal(answer.status, 200, `request ${i + 1}`);
        remaining.push(remainingOf(answer));
      }
      assert.deepEqual(remaining, Array.from({ length: 20 }, (_, i) => 19 - i));
      for (const connection of [first!, second!]) {
        const answer = await connection.send('GET', '/api/users/1', client);
        assert.equal(answer.status, 429);
        assert.deepEqual(answer.json, { error: 'Too many requests' });
        assert.equal(answer.headers['ratelimit-policy'], '"default";q=20;w=3600');
        assert.equal(remainingOf(answer), 0);
        assert.ok(Number(answer.headers['retry-after']) >= 1);
      }
    } finally {
      first?.close();
      second?.close();
    }
  });

  test('30 requests racing on fresh connections to both workers: exactly 20 are admitted', async () => {
    const workers = await twoWorkers(limited);
    const connections = Array.from({ length: 30 }, () => new WorkerConnection(portOf(limited.baseUrl)));
    try {
      const answers = await Promise.all(connections.map((connection) => connection.send('GET', '/api/users/1', { 'x-forwarded-for': '198.51.100.21' })));
      const statuses = answers.map((answer) => answer.status);
      assert.equal(statuses.filter((status) => status === 200).length, 20, String(statuses));
      assert.equal(statuses.filter((status) => status === 429).length, 10, String(statuses));
      const owners = new Set(await Promise.all(connections.map((connection) => connection.owner(workers))));
      assert.equal(owners.size, 2, 'both workers answered some');
    } finally {
      for (const connection of connections) connection.close();
    }
  });
});
