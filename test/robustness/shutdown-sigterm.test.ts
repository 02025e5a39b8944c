import assert from 'node:assert/strict';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';
import { lockUsersTable, sessionsWaitingForLock, type TableLock } from './helpers/db-sessions.js';

/** SHUTDOWN_DRAIN_MS in src/commands/start.ts: in-flight requests get this long before they are cut. */
const DRAIN_DEADLINE_MS = 10_000;
/** As many creates and reads as reach the database as separate statements, the rest would wait in the service's queue. */
const CREATES_IN_FLIGHT = defaultTuning.writeBatchesInFlight;
const READS_IN_FLIGHT = defaultTuning.batchesInFlight;
const LOAD_WORKERS = 4;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request over node:http, so the Connection header the server sent can be read back. */
function send(baseUrl: string, method: string, path: string, agent: Agent | false, json?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const req = httpRequest(
      `${baseUrl}${path}`,
      { method, agent, headers: body ? { 'content-type': 'application/json' } : {}, timeout: 30_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
    req.end(body);
  });
}

interface Load {
  /** Every answer the load got, and every network error code. */
  answers: Answer[];
  errors: string[];
  stop(): Promise<void>;
}

/**
 * Workers that each open a new connection per request, until stopped or turned away. They stay off
 * the users table, so that the requests waiting on its lock are exactly the test's in-flight ones.
 */
function startLoad(baseUrl: string): Load {
  const load: Load = { answers: [], errors: [], stop: async () => {} };
  let stopped = false;
  const worker = async (): Promise<void> => {
    for (let i = 0; !stopped; i++) {
      try {
        load.answers.push(await send(baseUrl, 'GET', i % 2 === 0 ? '/healthz' : '/openapi.json', false));
      } catch (error) {
        load.errors.push((error as NodeJS.ErrnoException).code ?? String(error));
        return;
      }
    }
  };
  const running = Promise.all(Array.from({ length: LOAD_WORKERS }, () => worker()));
  load.stop = async () => {
    stopped = true;
    await running;
  };
  return load;
}

let db: TestDatabase;
let service: ChildService | undefined;
let lock: TableLock | undefined;
before(async () => {
  db = await createTestDatabase('sigterm');
});
after(async () => {
  await lock?.release();
  await service?.process.stop();
  await db.drop();
});

describe('SIGTERM during load', () => {
  test('in-flight requests complete (asked to close their connection), new connections are refused or answered 503 with Connection: close, the process exits 0 within the drain deadline', async () => {
    service = await spawnService(db.config);
    const { baseUrl } = service;
    const load = startLoad(baseUrl);
    await pollUntil('the load to be flowing', () => (load.answers.length >= 20 ? true : undefined));

    // Requests held deterministically in flight: the table is locked, so each waits inside the service.
    lock = await lockUsersTable(db.config);
    const keepAlive = new Agent({ keepAlive: true });
    // One at a time, each seen waiting before the next: requests arriving together would share
    // one batched statement, and the test must know every one of them is inside the service.
    const requests = [
      ...Array.from({ length: CREATES_IN_FLIGHT }, (_, i) => () =>
        send(baseUrl, 'POST', '/api/users', keepAlive, { name: `In flight ${i}`, email: `inflight-${i}@example.com` })),
      ...Array.from({ length: READS_IN_FLIGHT }, (_, i) => () => send(baseUrl, 'GET', `/api/users/${i + 1}`, keepAlive)),
    ];
    const inFlight: Array<Promise<Answer>> = [];
    for (const [i, request] of requests.entries()) {
      inFlight.push(request());
      await pollUntil(`${i + 1} requests to wait on the table lock`, async () =>
        (await sessionsWaitingForLock(db)).length === i + 1 ? true : undefined,
      );
    }

    service.process.signal('SIGTERM');
    await pollUntil('the service to start shutting down', () =>
      service!.process.entries().some((entry) => entry.msg === 'shutting down') ? true : undefined,
    );
    const shutdownStarted = Date.now();

    const latecomer = await send(baseUrl, 'GET', '/healthz', false).then(
      (answer) => answer,
      (error: NodeJS.ErrnoException) => String(error.code),
    );
    if (typeof latecomer === 'string') assert.equal(latecomer, 'ECONNREFUSED', 'a new connection is refused');
    else assert.deepEqual([latecomer.status, latecomer.headers.connection], [503, 'close']);

    await lock.release();
    const answers = await Promise.all(inFlight);
    answers.forEach((answer, i) => {
      assert.equal(answer.status, i < CREATES_IN_FLIGHT ? 201 : 200, `in-flight request ${i} completed: ${answer.body}`);
      assert.equal(answer.headers.connection, 'close', `in-flight request ${i} is told to close its connection`);
    });

    let giveUp: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      service.process.exited,
      new Promise<never>((_, reject) => {
        giveUp = setTimeout(() => reject(new Error('the process did not exit after the drain deadline')), DRAIN_DEADLINE_MS + 5000);
      }),
    ]);
    clearTimeout(giveUp);
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(Date.now() - shutdownStarted < DRAIN_DEADLINE_MS, 'the process exited within the drain deadline');
    keepAlive.destroy();

    await load.stop();
    for (const answer of load.answers) {
      if (answer.status === 503) assert.equal(answer.headers.connection, 'close');
      else assert.equal(answer.status, 200, answer.body);
    }
    for (const code of load.errors) assert.ok(['ECONNREFUSED', 'ECONNRESET'].includes(code), `load ended by ${code}`);
    assert.equal(load.errors.length, LOAD_WORKERS, 'every load worker was eventually turned away');

    const stored = await db.query<unknown[]>("SELECT id FROM users WHERE email LIKE 'inflight-%'");
    assert.equal(stored.length, CREATES_IN_FLIGHT, 'every create acknowledged during the drain is stored');
  });
});
