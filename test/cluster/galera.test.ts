import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { galeraAvailable, startGaleraCluster, type GaleraCluster } from '../helpers/galera/galera-cluster.js';
import { request } from '../helpers/http.js';
import { scrape, valueOf } from '../helpers/metrics.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { pollUntil, waitUntil } from '../helpers/poll-until.js';
import { workerPids } from '../helpers/service-workers.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { connectionsTo, idsByEmail, scenarioDatabase, spawnClusterService, usersOn, type StoredUser } from './support/cluster-service.js';
import { conflictStorm, stormEmail } from './support/conflict-storm.js';
import { EventLoad, isSuccess } from './support/event-load.js';
import { EventPager } from './support/event-pager.js';
import { eventsOn, judgeOutbox, numberedOn } from './support/outbox-check.js';
import { ddlInTotalOrderWhereRsuIsTheDefault, lockIsLocalToANode, runnersOnTwoNodesApplyEachOnce } from './support/migration-runs.js';
import { MixedLoad, type Outcome } from './support/mixed-load.js';

const CLIENTS = 20;
const LOAD_MS = 10_000;
const KILL_AT_MS = 3000;
/** How long two services write events through two nodes at once. */
const TWO_WRITERS_MS = 6000;

let cluster: GaleraCluster;
const services: ChildService[] = [];
const loads: MixedLoad[] = [];

/** A service on this file's cluster, stopped after its test whatever happens. */
async function service(order: number[], database: string, env: Record<string, string> = {}): Promise<ChildService> {
  const started = await spawnClusterService(cluster, order, database, env);
  services.push(started);
  return started;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Certification conflicts and brute-force aborts so far, over every node. */
async function conflictsSoFar(): Promise<number> {
  let total = 0;
  for (const node of cluster.nodes) {
    const rows = await node.query<Array<{ Value: string }>>(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')",
    );
    total += rows.reduce((sum, row) => sum + Number(row.Value), 0);
  }
  return total;
}

const skip = !galeraAvailable() && 'galera-4 or rsync not installed';

// One cluster for the whole file: starting one takes a while, and two at once would crowd two cores.
before(async () => {
  if (skip) return;
  const startedAt = performance.now();
  cluster = await startGaleraCluster(3);
  console.log(`# Galera cluster of 3 started and Synced in ${Math.round(performance.now() - startedAt)} ms`);
});
after(async () => {
  for (const child of services.splice(0)) await child.process.stop();
  await cluster?.stop();
});

describe('schema migrations on the Galera cluster', { skip }, () => {
  test('GET_LOCK on a Galera node is local to it: a lock held through one node is free on another', () => lockIsLocalToANode(cluster));
  test("set-ups through two nodes at once, each holding its node's lock, apply each migration exactly once, and both nodes have every index", () =>
    runnersOnTwoNodesApplyEachOnce(cluster));
  test("the service's DDL replicates in total order even where the node defaults to RSU, so an index recorded as applied exists on every node", () =>
    ddlInTotalOrderWhereRsuIsTheDefault(cluster));
});

describe('a 3-node Galera cluster behind the service (WORKERS=2, DB_HOST listing the nodes)', { skip }, () => {
  afterEach(async () => {
    // A failed test's load is stopped too: left running, it would keep its process (and a core) busy.
    for (const load of loads.splice(0)) await load.stop();
    for (const child of services.splice(0)) await child.process.stop();
  });

  test('kill -9 of the node in use under mixed load: no acknowledged write lost, errors only JSON 500/503 during the failover, none after', async () => {
    const database = scenarioDatabase('failover');
    const { baseUrl, process: serviceProcess } = await service([0, 1, 2], database);
    for (let i = 0; i < CLIENTS; i++) {
      const res = await request(baseUrl, 'POST', '/api/users', { json: { name: MixedLoad.updatedName(i, 0), email: `client-${i}@example.com` } });
      assert.equal(res.status, 201);
    }
    const ids = await idsByEmail(baseUrl);
    const load = new MixedLoad(
      baseUrl,
      Array.from({ length: CLIENTS }, (_, i) => ({ id: ids.get(`client-${i}@example.com`)!, email: `client-${i}@example.com` })),
    );
    assert.ok((await connectionsTo(cluster.nodes[0]!, database)) > 0, 'the service uses node 1, the first listed');

    const loadStart = performance.now();
    loads.push(load);
    load.start();
    await sleep(KILL_AT_MS);
    const killedAt = performance.now();
    await cluster.kill(0);
    const readyWithoutNode1 = await pollUntil('/readyz to say ready on the two nodes left', async () => {
      const res = await request(baseUrl, 'GET', '/readyz');
      return res.status === 200 ? performance.now() - killedAt : undefined;
    }, { timeoutMs: 30_000 });
    await sleep(LOAD_MS - KILL_AT_MS - 4000 - (performance.now() - killedAt));
    const rejoined = cluster.restart(0);
    await sleep(LOAD_MS - (performance.now() - loadStart));
    await rejoined;
    const rejoinedAt = performance.now();
    // After the rejoin the service moves back to node 1 once it has passed its health checks for 3 s; load goes on across that.
    await waitUntil('the service to use node 1 again', async () => (await connectionsTo(cluster.nodes[0]!, database)) > 0, { timeoutMs: 30_000 });
    await sleep(1000);
    await load.stop();
    const endedAt = performance.now();

    const wrong = load.outcomes.filter((outcome) => outcome.wrong);
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} answers broke the contract`);
    const errors = load.outcomes.filter((outcome) => outcome.status !== 200 && outcome.status !== 201);
    const beforeKill = errors.filter((outcome) => outcome.at < killedAt);
    assert.equal(beforeKill.length, 0, 'no error before the kill');
    const afterRejoin = errors.filter((outcome) => outcome.at > rejoinedAt);
    assert.equal(afterRejoin.length, 0, 'no error once the killed node was back');
    const windowMs = errors.length === 0 ? 0 : Math.max(...errors.map((outcome) => outcome.at)) - killedAt;
    const successes = load.outcomes.length - errors.length;
    const slowest = Math.max(...load.outcomes.filter((outcome) => outcome.at > killedAt).map((outcome) => outcome.ms));
    console.log(
      `# failover: ${errors.length} errors (JSON 500/503) of ${load.outcomes.length} answers in ${Math.round(endedAt - loadStart)} ms; ` +
        `last error ${Math.round(windowMs)} ms after the kill; slowest answer after the kill ${Math.round(slowest)} ms; ${successes} successes; ` +
        `${load.acknowledgedCreates.size} creates acknowledged, ${load.unacknowledgedCreates.size} not; /readyz 200 again ${Math.round(readyWithoutNode1)} ms after the kill`,
    );
    // A health check that times out on the node just back (a busy machine) leaves it out again for readmitAfterMs: the service must return to it by itself.
    await waitUntil('the service to be on node 1 again after the load', async () => (await connectionsTo(cluster.nodes[0]!, database)) > 0, { timeoutMs: 30_000 }).catch(
      (error: Error) => {
        const moves = serviceProcess.lines.filter((line) => /left out|taken back|connected again/.test(line));
        throw new Error(`the service went back to node 1 after it rejoined: ${error.message}\n${moves.join('\n')}`);
      },
    );

    for (const node of cluster.nodes) {
      const users = await usersOn(node, database);
      const countByEmail = new Map<string, number>();
      for (const user of users) countByEmail.set(user.email, (countByEmail.get(user.email) ?? 0) + 1);
      for (const email of load.acknowledgedCreates) assert.equal(countByEmail.get(email), 1, `${node.name}: acknowledged ${email} stored once`);
      for (const email of load.unacknowledgedCreates) assert.ok((countByEmail.get(email) ?? 0) <= 1, `${node.name}: ${email} at most once`);
      for (const [i, client] of load.clients.entries()) {
        const stored = MixedLoad.sequenceOf(users.find((user) => user.id === client.id)!.name);
        assert.ok(stored >= load.lastAcknowledged[i]! && stored <= load.lastSent[i]!, `${node.name}: client ${i} holds v${stored}, acknowledged v${load.lastAcknowledged[i]}`);
      }
    }
  });

  test('two instances starting at once seed the table once; read your writes across instances: a create or update through one instance is seen at once through the other, on another node', async () => {
    const database = scenarioDatabase('ryw');
    // Both start at once against a database that does not exist yet, one through node 1, one through node 3.
    const [first, third] = await Promise.all([service([0, 1, 2], database), service([2, 1, 0], database)]);
    for (const node of cluster.nodes) {
      assert.equal((await usersOn(node, database)).length, 10, `${node.name}: the table was seeded exactly once`);
    }
    const seeded = [...(await idsByEmail(first.baseUrl)).values()].slice(0, 5);
    const misses: string[] = [];
    const TRIES = 500;
    for (let i = 0; i < TRIES; i++) {
      const [writer, reader] = i % 2 === 0 ? [first, third] : [third, first];
      if (i % 4 < 2) {
        const email = `ryw-${i}@example.com`;
        const created = await request(writer.baseUrl, 'POST', '/api/users', { json: { name: `ryw ${i}`, email } });
        assert.equal(created.status, 201, created.text);
        const list = await request(reader.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
        if (!(list.json as StoredUser[]).some((user) => user.email === email)) misses.push(`create ${i}`);
      } else {
        const id = seeded[i % seeded.length]!;
        const name = `ryw update ${i}`;
        const updated = await request(writer.baseUrl, 'PUT', `/api/users/${id}`, { json: { name, email: `ryw-u-${i}@example.com` } });
        assert.equal(updated.status, 200, updated.text);
        const read = await request(reader.baseUrl, 'GET', `/api/users/${id}`);
        if ((read.json as StoredUser).name !== name) misses.push(`update ${i}`);
      }
    }
    assert.ok((await connectionsTo(cluster.nodes[0]!, database)) > 0, 'one instance works on node 1');
    assert.ok((await connectionsTo(cluster.nodes[2]!, database)) > 0, 'the other works on node 3');
    console.log(`# read your writes across instances on nodes 1 and 3: ${TRIES} tries, ${misses.length} misses`);
    assert.deepEqual(misses, []);
  });

  test('certification conflict storm through two nodes: every update gets 200 or a JSON 500, and what is stored is what an acknowledged update wrote', async () => {
    const database = scenarioDatabase('storm');
    const first = await service([0, 1, 2], database);
    const third = await service([2, 1, 0], database);
    const ids = [...(await idsByEmail(first.baseUrl)).values()].slice(0, 3);
    const conflictsBefore = await conflictsSoFar();
    const storm = await conflictStorm([first.baseUrl, third.baseUrl], ids, 12, 5000);
    let conflicts = (await conflictsSoFar()) - conflictsBefore;
    // A round usually meets a few conflicts (6 in 489 updates); a slow machine once met none in 312: up to 5 more rounds.
    let rounds = 1;
    while (conflicts === 0 && rounds < 6) {
      await conflictStorm([first.baseUrl, third.baseUrl], ids, 12, 5000, storm, rounds++);
      conflicts = (await conflictsSoFar()) - conflictsBefore;
    }
    const nodesInUse = `${await connectionsTo(cluster.nodes[0]!, database)} connections on node 1, ${await connectionsTo(cluster.nodes[2]!, database)} on node 3`;
    console.log(`# conflict storm: ${storm.ok} updates acknowledged in ${rounds} rounds of 5 s, ${storm.failed} JSON 500s, ${conflicts} certification conflicts and brute-force aborts in the cluster; ${nodesInUse}`);
    assert.deepEqual(storm.wrong, []);
    assert.ok(conflicts > 0, `the storm did make the nodes conflict (${nodesInUse})`);
    for (const node of cluster.nodes) {
      const users = await usersOn(node, database);
      for (const id of ids) {
        const stored = users.find((user) => user.id === id)!;
        assert.ok(storm.acknowledged.get(id)!.has(stored.name), `${node.name}: user ${id} holds "${stored.name}", which no acknowledged update wrote`);
        assert.equal(stored.email, stormEmail(stored.name), `${node.name}: name and email of user ${id} come from one write`);
      }
    }
  });

  test('UNIQUE_EMAIL=on through two nodes: the same email created at once through both -> exactly one 201 per email, the rest 409, one row on every node', async () => {
    const database = scenarioDatabase('unique');
    const first = await service([0, 1, 2], database, { UNIQUE_EMAIL: 'on' });
    const third = await service([2, 1, 0], database, { UNIQUE_EMAIL: 'on' });
    for (const node of cluster.nodes) {
      const index = await node.query<unknown[]>("SELECT 1 FROM information_schema.statistics WHERE table_schema = ? AND table_name = 'users' AND index_name = 'users_email_unique' AND non_unique = 0", [database]);
      assert.equal(index.length, 1, `${node.name}: the start built users_email_unique and it replicated`);
    }
    const conflictsBefore = await conflictsSoFar();
    const ROUNDS = 10;
    const unexpected: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const email = `twice-${round}@example.com`;
      const answers = await Promise.all(
        [first, third].flatMap(({ baseUrl }, s) =>
          Array.from({ length: 8 }, (_, i) => request(baseUrl, 'POST', '/api/users', { json: { name: `Twice ${s}-${i}`, email: i % 2 ? email.toUpperCase() : email } })),
        ),
      );
      const created = answers.filter((answer) => answer.status === 201).length;
      const refused = answers.filter((answer) => answer.status === 409 && answer.text === '{"error":"Email already in use"}').length;
      if (created !== 1 || refused !== answers.length - 1) unexpected.push(`${email}: ${answers.map((answer) => `${answer.status} ${answer.text}`).join(', ')}`);
    }
    // How often the nodes conflicted depends on timing (0 to a few per run): a loser's write is rolled back
    // (1213), run again, and then meets the winner's row (1062, so 409); the unit tests pin that sequence down.
    const conflicts = (await conflictsSoFar()) - conflictsBefore;
    console.log(`# unique emails through two nodes: ${ROUNDS} rounds of 16 creates, ${conflicts} certification conflicts and brute-force aborts`);
    assert.deepEqual(unexpected.slice(0, 3), [], `${unexpected.length} rounds did not give exactly one 201 and the rest 409`);
    for (const node of cluster.nodes) {
      const users = await usersOn(node, database);
      for (let round = 0; round < ROUNDS; round++) {
        assert.equal(users.filter((user) => user.email.toLowerCase() === `twice-${round}@example.com`).length, 1, `${node.name}: twice-${round} stored once`);
      }
    }
  });

  test('kill -9 of one worker under load: it is replaced and the service keeps answering', async () => {
    const database = scenarioDatabase('worker');
    const { baseUrl, process: child } = await service([0, 1, 2], database);
    const ids = await idsByEmail(baseUrl);
    const clients = [...ids.entries()].slice(0, 8).map(([email, id], i) => ({ id, email, name: MixedLoad.updatedName(i, 0) }));
    for (const client of clients) await request(baseUrl, 'PUT', `/api/users/${client.id}`, { json: { name: client.name, email: client.email } });
    const workers = workerPids(child.pid);
    assert.equal(workers.length, 2, 'two workers');
    // Both must be serving before one is killed: killing the only one listening closes the port for all.
    await pollUntil('both workers serving', () => (child.entries().filter((entry) => entry.msg === 'schema ready').length >= 2 ? true : undefined), { timeoutMs: 30_000 });
    const load = new MixedLoad(baseUrl, clients);
    loads.push(load);
    load.start();
    await pollUntil('twenty right answers to the load before the kill', () => (load.outcomes.filter((outcome) => !outcome.wrong).length >= 20 ? true : undefined));
    const killedAt = performance.now();
    process.kill(workers[0]!, 'SIGKILL');
    const replacement = await pollUntil('a replacement worker', () => {
      const now = workerPids(child.pid);
      return now.length === 2 && !now.includes(workers[0]!) ? now.find((pid) => pid !== workers[1]) : undefined;
    }, { timeoutMs: 30_000 });
    await pollUntil('the replacement to serve', () => (child.entries().filter((entry) => entry.msg === 'schema ready').length >= 3 ? true : undefined), { timeoutMs: 30_000 });
    const replacedAt = performance.now();
    // Judged by when each request was sent: one sent to the killed worker may only fail later, at its timeout.
    const sentAfterReplacement = (): Outcome[] => load.outcomes.filter((outcome) => outcome.sentAt > replacedAt + 200);
    await pollUntil('answers after the replacement', () => (sentAfterReplacement().length >= 20 ? true : undefined), {
      timeoutMs: 30_000,
    });
    await load.stop();
    const servedMeanwhile = load.outcomes.filter((outcome) => outcome.at > killedAt && outcome.at < replacedAt && !outcome.wrong).length;
    const afterReplacement = sentAfterReplacement();
    const lost = load.outcomes.filter((outcome) => outcome.wrong);
    console.log(
      `# worker ${workers[0]} killed, replaced by ${replacement} after ${Math.round(replacedAt - killedAt)} ms; ` +
        `${servedMeanwhile} answers meanwhile, ${lost.length} requests lost with the killed worker's connections`,
    );
    assert.ok(child.entries().some((entry) => entry.msg === 'worker died, replacing it'), 'the primary logged the replacement');
    const sample = JSON.stringify(lost.slice(0, 3).map((outcome) => ({ ...outcome, at: Math.round(outcome.at - killedAt) })));
    assert.ok(servedMeanwhile > 0, `the other worker kept answering (the first failures, ms after the kill: ${sample})`);
    assert.ok(afterReplacement.length > 0, 'requests sent after the replacement');
    assert.deepEqual(afterReplacement.filter((outcome) => outcome.wrong), [], 'every request sent after the replacement is answered right');
    assert.ok(lost.every((outcome) => outcome.status === 'network' && outcome.at > killedAt), 'only requests cut with the killed worker failed');
  });
});

describe('change events (EVENTS=on) on the Galera cluster', { skip }, () => {
  const EVENTS_ON = { EVENTS: 'on' };
  const readers: EventPager[] = [];
  const eventLoads: EventLoad[] = [];
  /** Nodes a test killed and has not started again: started in afterEach, so later tests find three. */
  const killed = new Set<number>();

  afterEach(async () => {
    for (const load of eventLoads.splice(0)) await load.stop();
    for (const reader of readers.splice(0)) await reader.stop().catch(() => {});
    for (const child of services.splice(0)) await child.process.stop();
    for (const index of killed) await cluster.restart(index);
    killed.clear();
  });

  /**
   * Stops the load, waits until every event has its id (the services number them right after each
   * commit), then stops the services, so nothing is in flight, then the readers (each reads on to the end).
   */
  async function settle(load: EventLoad, pagers: EventPager[], database: string): Promise<void> {
    await load.stop();
    await numberedOn(cluster.nodes[1]!, database);
    for (const child of services.splice(0)) await child.process.stop();
    for (const pager of pagers) await pager.stop();
  }

  test('kill -9 of the node the service writes through, under concurrent creates, PUTs, PATCHes and DELETEs: every acknowledged change has exactly one event with its type and fields, every event is a change the table holds, ids distinct and gapless', async () => {
    const startedAt = performance.now();
    const database = scenarioDatabase('events_failover');
    const { baseUrl } = await service([0, 1, 2], database, EVENTS_ON);
    const untouched = new Set((await idsByEmail(baseUrl)).values());
    const load = new EventLoad();
    eventLoads.push(load);
    for (let i = 0; i < 12; i++) await load.addClient(baseUrl, `f${i}`);
    const pager = new EventPager(cluster.nodes[1]!, database);
    readers.push(pager);
    load.start();
    pager.start();
    await waitUntil('200 acknowledged changes before the kill', () => load.acknowledged.length >= 200, { timeoutMs: 30_000 });
    assert.ok((await connectionsTo(cluster.nodes[0]!, database)) > 0, 'the service writes through node 1, the first listed');
    const killedAt = performance.now();
    killed.add(0);
    await cluster.kill(0);
    await waitUntil('/readyz to say ready on the two nodes left', async () => (await request(baseUrl, 'GET', '/readyz')).status === 200, { timeoutMs: 30_000 });
    const readyAt = performance.now();
    await waitUntil('200 acknowledged changes after the failover', () => load.acknowledged.filter((change) => change.at > readyAt).length >= 200, { timeoutMs: 30_000 });
    const loadMs = performance.now() - killedAt;
    await settle(load, [pager], database);
    await cluster.restart(0);
    killed.delete(0);

    assert.deepEqual(load.sent.filter((change) => change.wrong).slice(0, 5), [], 'every answer is 2xx or a JSON 500/503');
    const verdict = await judgeOutbox(cluster.nodes[1]!, database, load.sent, untouched);
    const failed = load.sent.filter((change) => !isSuccess(change.status));
    console.log(
      `# events through a failover: ${load.sent.length} changes sent, ${load.acknowledged.length} acknowledged (${load.acknowledgedByType()}), ${failed.length} JSON 500/503 ` +
        `(${failed.filter((change) => change.at > killedAt).length} after the kill), of which ${verdict.hiddenCommits.length} committed all the same ` +
        `(${verdict.hiddenCommits.map((change) => `${change.type} ${change.requestId}`).join(', ') || 'none'}); ${verdict.events} events, ` +
        `${JSON.stringify(verdict.shared)} written by shared statements; /readyz 200 ${Math.round(readyAt - killedAt)} ms after the kill; ` +
        `reader on ${pager.node.name}: ${pager.seenDuringLoad} ids in ${pager.pages} pages during the load, ${pager.errors} errors; ` +
        `${Math.round(performance.now() - startedAt)} ms in all, ${Math.round(loadMs)} ms of it from the kill to the load's end`,
    );
    assert.deepEqual(verdict.problems.slice(0, 10), [], `${verdict.problems.length} broken rules`);
    assert.ok((verdict.shared['user.created'] ?? 0) > 0, 'concurrent creates shared statements (and so event statements)');
    const outbox = await eventsOn(cluster.nodes[1]!, database);
    for (const node of cluster.nodes) assert.deepEqual(await eventsOn(node, database), outbox, `${node.name} (node 1 rejoined) holds the same events`);
    assert.deepEqual(pager.differences(outbox.map((event) => event.id)), []);
  });

  test('writers through two nodes at once, each instance numbering the events it committed: the numbering conflicts are retried, every acknowledged change has its event, every node holds the same events in the same order, and a reader paging by id on each node misses none', async () => {
    const startedAt = performance.now();
    const database = scenarioDatabase('events_two');
    const [first, third] = await Promise.all([service([0, 1, 2], database, EVENTS_ON), service([2, 1, 0], database, EVENTS_ON)]);
    const untouched = new Set((await idsByEmail(first.baseUrl)).values());
    const load = new EventLoad();
    eventLoads.push(load);
    for (let i = 0; i < 8; i++) {
      await load.addClient(first.baseUrl, `a${i}`);
      await load.addClient(third.baseUrl, `b${i}`);
    }
    const pagers = cluster.nodes.map((node) => new EventPager(node, database));
    readers.push(...pagers);
    const conflictsBefore = await conflictsSoFar();
    const loadStart = performance.now();
    load.start();
    for (const pager of pagers) pager.start();
    await sleep(TWO_WRITERS_MS);
    assert.ok((await connectionsTo(cluster.nodes[0]!, database)) > 0, 'one instance writes through node 1');
    assert.ok((await connectionsTo(cluster.nodes[2]!, database)) > 0, 'the other through node 3');
    await settle(load, pagers, database);
    const loadMs = performance.now() - loadStart;
    const conflicts = (await conflictsSoFar()) - conflictsBefore;

    assert.deepEqual(load.sent.filter((change) => change.wrong).slice(0, 5), [], 'every answer is 2xx or a JSON 500/503');
    const verdict = await judgeOutbox(cluster.nodes[1]!, database, load.sent, untouched);
    const failed = load.sent.filter((change) => !isSuccess(change.status));
    const through = (prefix: string) => load.acknowledged.filter((change) => change.requestId.startsWith(prefix)).length;
    console.log(
      `# events through two nodes: ${load.sent.length} changes sent in ${Math.round(loadMs)} ms, ${load.acknowledged.length} acknowledged ` +
        `(${load.acknowledgedByType()}; ${through('a')} through node 1, ${through('b')} through node 3), ${failed.length} JSON 500/503, ${verdict.hiddenCommits.length} of them committed; ` +
        `${conflicts} certification conflicts and brute-force aborts in the cluster; ${verdict.events} events, ${JSON.stringify(verdict.shared)} by shared statements; ` +
        `readers: ${pagers.map((pager) => `${pager.node.name} ${pager.seenDuringLoad} ids in ${pager.pages} pages, ${pager.errors} errors`).join('; ')}; ` +
        `${Math.round(performance.now() - startedAt)} ms in all`,
    );
    assert.ok(conflicts > 0, 'the numbering on the two nodes did conflict on the event sequence');
    assert.deepEqual(verdict.problems.slice(0, 10), [], `${verdict.problems.length} broken rules`);
    const outbox = await eventsOn(cluster.nodes[1]!, database);
    for (const node of cluster.nodes) assert.deepEqual(await eventsOn(node, database), outbox, `${node.name} holds the same events in the same order`);
    for (const pager of pagers) assert.deepEqual(pager.differences(outbox.map((event) => event.id)), []);
  });
});

describe('shared limits (LIMITS_SHARED, on by default with a host list) on the Galera cluster', { skip }, () => {
  const proxies: TcpProxy[] = [];
  after(async () => {
    for (const child of services.splice(0)) await child.process.stop();
    for (const proxy of proxies.splice(0)) await proxy.close();
  });

  /**
   * One client's requests spread round robin over the instances as fast as `connections` loops go,
   * for `ms`; per clock window, those the limit let through (`admitted`: answered other than 429,
   * since an instance cut from the database answers 500 to what it lets through, and a scenario
   * database may hold no user 1, answered 404).
   */
  const statuses = new Map<string, number>();
  async function flood(bases: string[], ms: number, windowMs: number, connections = 12, admitted: (status: number) => boolean = (status) => status !== 429): Promise<Map<number, number>> {
    const accepted = new Map<number, number>();
    statuses.clear();
    const until = Date.now() + ms;
    let next = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < until) {
          const res = await fetch(`${bases[next++ % bases.length]}/api/users/1`).catch((error: Error) => {
            statuses.set(error.message, (statuses.get(error.message) ?? 0) + 1);
            return undefined;
          });
          await res?.body?.cancel();
          if (res) statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1);
          if (res !== undefined && admitted(res.status)) accepted.set(Math.floor(Date.now() / windowMs), (accepted.get(Math.floor(Date.now() / windowMs)) ?? 0) + 1);
        }
      }),
    );
    return accepted;
  }

  test('three instances, each on its own node, hold one client to RATE_LIMIT; the syncs never meet a certification conflict; an instance cut from the cluster limits alone and rejoins the shared count', async () => {
    const database = scenarioDatabase('limits');
    const env = { RATE_LIMIT: '120/3s', METRICS: 'on' };
    const instances = [await service([0, 1, 2], database, env), await service([1, 2, 0], database, env)];
    // The third reaches the nodes through proxies the test can cut, as a partition would.
    for (const node of cluster.nodes) proxies.push(await startTcpProxy({ host: '127.0.0.1', port: node.ports.sql }));
    const cut = await spawnService(
      { servers: [2, 0, 1].map((i) => ({ host: '127.0.0.1', port: proxies[i]!.port })), user: 'root', password: '', database },
      { WORKERS: '2', DB_POOL_SIZE: '8', ...env },
    );
    services.push(cut);
    instances.push(cut);
    const bases = instances.map((instance) => instance.baseUrl);
    const windowMs = 3000;
    const conflictsBefore = await conflictsSoFar();
    // At most one instance's first claim beyond the limit (docs/scaling.md, Accuracy): an instance whose
    // first request of a window comes after the others claimed the rest claims its share once more.
    // A CI run on a loaded machine admitted 139.
    const mostPerWindow = 120 + 120 / 3;
    const twoWindows = async (): Promise<{ first: number; shared: Map<number, number> }> => {
      await sleep(windowMs - (Date.now() % windowMs) + 20);
      const start = Math.floor(Date.now() / windowMs);
      return { first: start, shared: await flood(bases, 2 * windowMs - 100, windowMs) };
    };
    const inBounds = ({ first, shared }: { first: number; shared: Map<number, number> }): boolean =>
      [first, first + 1].every((window) => (shared.get(window) ?? 0) >= 108 && (shared.get(window) ?? 0) <= mostPerWindow);
    let measured = await twoWindows();
    if (!inBounds(measured)) {
      // Out of bounds once, in a full-suite run (139 admitted): said, and measured again.
      console.log(`# shared limits on Galera: first two windows out of bounds (${[...measured.shared.values()].join(', ')}; answers ${JSON.stringify([...statuses])}), measured again`);
      measured = await twoWindows();
    }
    const { first, shared } = measured;
    const conflicts = (await conflictsSoFar()) - conflictsBefore;
    console.log(`# shared limits on Galera: accepted per 3 s window ${[...shared.values()].join(', ')} at 120/3s; ${conflicts} certification conflicts and brute-force aborts`);
    for (const window of [first, first + 1]) {
      const count = shared.get(window) ?? 0;
      assert.ok(count >= 108 && count <= mostPerWindow, `${count} accepted in a window at 120/3s (answers: ${JSON.stringify([...statuses])})`);
    }
    assert.equal(conflicts, 0, 'rows only their writer touches never conflict');

    // Only lines written after the cut answer it: a sync that failed on a crowded machine earlier wrote the same ones.
    const beforeCut = cut.process.entries().length;
    for (const proxy of proxies) await proxy.setMode('refuse');
    await cut.process.logEntry('limits counted by this instance alone until the database answers', 15_000, beforeCut);
    await sleep(windowMs - (Date.now() % windowMs) + 20);
    const alone = await flood([cut.baseUrl], windowMs - 100, windowMs, 6, (status) => status !== 429);
    const aloneCount = [...alone.values()].reduce((sum, count) => sum + count, 0);
    assert.ok(aloneCount > 0 && aloneCount <= 120, `cut off, the instance admitted ${aloneCount}: its own count, never unlimited (answers: ${JSON.stringify([...statuses])})`);

    const beforeHeal = cut.process.entries().length;
    for (const proxy of proxies) await proxy.setMode('forward');
    await cut.process.logEntry('limits shared again', 15_000, beforeHeal);
    await sleep(windowMs - (Date.now() % windowMs) + 20);
    const rejoined = await flood(bases, windowMs - 100, windowMs);
    const rejoinedCount = [...rejoined.values()].reduce((sum, count) => sum + count, 0);
    assert.ok(rejoinedCount >= 108 && rejoinedCount <= mostPerWindow, `healed: ${rejoinedCount} accepted in a window at 120/3s`);
    const families = await scrape(`${cut.baseUrl}/metrics`);
    assert.ok(valueOf(families, 'limits_sync_failures_total') > 0, 'the failed syncs are counted');
    assert.equal(valueOf(families, 'limits_shared_instances'), 3);
  });
});
