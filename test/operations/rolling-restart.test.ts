import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { haproxyBinary, startHaproxy, type RunningHaproxy } from '../helpers/haproxy.js';
import { pollUntil } from '../helpers/poll-until.js';
import { portOf } from '../helpers/http.js';

/**
 * The operator's report, reproduced: HAProxy checking `/readyz` in front of two instances, steady
 * keep-alive load, SIGTERM to one. With SHUTDOWN_DELAY_S=0 (draining at once) a few requests in
 * most runs reach a kept-alive connection the instance is closing, and HAProxy closes the client's
 * connection without an answer (operators also saw 502s); with the delay HAProxy takes the instance
 * out first.
 */

/** The instances' delay: ten of HAProxy's 200 ms checks, so one failed check always lands within it. */
const DELAY_S = '2';
/** Keep-alive connections from the clients to HAProxy, each sending one request after another. */
const CONNECTIONS = 64;
/** Requests answered after the stopped instance exited: the survivor alone must serve them. */
const AFTERWARDS = 1500;

interface Outcome {
  id: string;
  method: string;
  /** performance.now() when the request was sent. */
  sentAt: number;
  status?: number;
  error?: string;
}

/** One request on the agent's keep-alive connections, carrying its own X-Request-Id; never rejects. */
function send(agent: Agent, baseUrl: string, id: string, method: string, path: string, json?: unknown): Promise<Outcome> {
  const outcome: Outcome = { id, method, sentAt: performance.now() };
  const body = json === undefined ? undefined : JSON.stringify(json);
  const headers: Record<string, string> = { 'x-request-id': id, ...(body ? { 'content-type': 'application/json' } : {}) };
  return new Promise((resolve) => {
    const req = httpRequest(`${baseUrl}${path}`, { method, agent, headers, timeout: 15_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ...outcome, status: res.statusCode ?? 0 }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ ...outcome, error: error.code ?? error.message }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ ...outcome, error: error.code ?? error.message }));
    req.end(body);
  });
}

/** CONNECTIONS loops of reads, with a create every eighth request, until stopped. */
function startLoad(baseUrl: string): { outcomes: Outcome[]; stop(): Promise<void> } {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const outcomes: Outcome[] = [];
  let stopped = false;
  let next = 0;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const n = next++;
      const id = `rolling-${n}`;
      outcomes.push(
        await (n % 8 === 7
          ? send(agent, baseUrl, id, 'POST', '/api/users', { name: `Rolling ${n}`, email: `rolling-${n}@example.com` })
          : send(agent, baseUrl, id, 'GET', '/api/users/1')),
      );
    }
  };
  const running = Promise.all(Array.from({ length: CONNECTIONS }, () => loop()));
  return {
    outcomes,
    stop: async () => {
      stopped = true;
      await running;
      agent.destroy();
    },
  };
}

/** The X-Request-Id of every request an instance logged. */
function servedIds(service: ChildService): Set<string> {
  return new Set(service.process.entries().filter((entry) => entry.msg === 'request').map((entry) => String(entry.requestId)));
}

const haproxy = haproxyBinary();

describe('rolling restart behind HAProxy', { skip: haproxy === undefined ? 'haproxy is not installed (Debian: apt-get install haproxy)' : false }, () => {
  let db: TestDatabase;
  const services: ChildService[] = [];
  let proxy: RunningHaproxy | undefined;
  before(async () => {
    db = await createTestDatabase('rolling');
  });
  after(async () => {
    await proxy?.stop();
    for (const service of services) await service.process.stop();
    await db.drop();
  });

  test(`SIGTERM to one of two instances under ${CONNECTIONS} keep-alive connections: every request gets a 2xx, the instance exits 0, the other serves the rest`, async (t) => {
    // One after the other: the first creates the schema the second finds.
    for (let i = 0; i < 2; i++) services.push(await spawnService(db.config, { SHUTDOWN_DELAY_S: DELAY_S }));
    const [leaving, staying] = services as [ChildService, ChildService];
    proxy = await startHaproxy(haproxy!, [
      { name: 'leaving', port: portOf(leaving.baseUrl) },
      { name: 'staying', port: portOf(staying.baseUrl) },
    ]);

    const load = startLoad(proxy.baseUrl);
    await pollUntil('the load to flow through both instances', () => (load.outcomes.length >= 300 ? true : undefined), { timeoutMs: 20_000 });
    leaving.process.signal('SIGTERM');
    const exit = await leaving.process.exited;
    const exitedAt = performance.now();
    const answeredBefore = load.outcomes.length;
    await pollUntil('the survivor to answer more requests', () => (load.outcomes.length >= answeredBefore + AFTERWARDS ? true : undefined), {
      timeoutMs: 20_000,
    });
    await load.stop();

    const failed = load.outcomes.filter((outcome) => outcome.status === undefined || outcome.status < 200 || outcome.status > 299);
    const summary = failed.slice(0, 10).map((outcome) => `${outcome.method} ${outcome.id}: ${outcome.status ?? outcome.error}`);
    const kinds = new Map<string, number>();
    for (const outcome of failed) kinds.set(String(outcome.status ?? outcome.error), (kinds.get(String(outcome.status ?? outcome.error)) ?? 0) + 1);
    assert.deepEqual(summary, [], `${failed.length} of ${load.outcomes.length} requests failed (${[...kinds].map(([kind, count]) => `${kind} x${count}`).join(', ')}); HAProxy logged:\n${proxy.log()}`);
    assert.deepEqual(exit, { code: 0, signal: null }, 'the stopped instance exits 0');
    const drainingLine = leaving.process.entries().find((entry) => entry.msg === 'draining');
    assert.ok(drainingLine && drainingLine.delaySkipped === undefined, 'it waited out its delay before draining');

    const servedByLeaving = servedIds(leaving);
    assert.ok(load.outcomes.some((outcome) => servedByLeaving.has(outcome.id)), 'the stopped instance served part of the load before');
    const afterwards = load.outcomes.filter((outcome) => outcome.sentAt > exitedAt);
    assert.ok(afterwards.length >= AFTERWARDS - CONNECTIONS, 'load went on after the exit');
    // An instance logs a request as its response ends: the last lines may still be on their way.
    const unlogged = await pollUntil('the other instance to log every later request', () => {
      const servedByStaying = servedIds(staying);
      const missing = afterwards.filter((outcome) => !servedByStaying.has(outcome.id)).map((outcome) => outcome.id);
      return missing.length === 0 ? missing : undefined;
    }, { timeoutMs: 5000, intervalMs: 200 }).catch(() => afterwards.filter((outcome) => !servedIds(staying).has(outcome.id)).map((outcome) => outcome.id));
    assert.deepEqual(unlogged.slice(0, 10), [], 'the other instance served the rest');
    assert.ok(afterwards.some((outcome) => outcome.method === 'POST'), 'creates went on too');
    const created = load.outcomes.filter((outcome) => outcome.method === 'POST').length;
    const stored = await db.query<unknown[]>("SELECT id FROM users WHERE email LIKE 'rolling-%'");
    assert.equal(stored.length, created, 'every acknowledged create is stored');
    t.diagnostic(`${load.outcomes.length} requests (${created} creates), ${afterwards.length} sent after the instance exited, none failed`);
  });
});
