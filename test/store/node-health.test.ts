import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { NodeHealthCheck } from '../../src/db/cluster/node-health.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';

/** Runs nothing else for `ms`: the process is held up as by a long collection or a starved CPU. */
function holdUp(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** The check's budget: a statement on an open connection to the local server fits it many times over. */
const BUDGET_MS = 1000;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('node_health');
});
after(() => db.drop());

describe('a server\'s health check (each server of a host list, every second)', () => {
  test('a server that answered within the budget passes, even when this process ran again only after the budget was over', async () => {
    const check = new NodeHealthCheck(db.config, db.config.servers[0]!, BUDGET_MS);
    try {
      // Opening the check's connection takes several round trips, which a crowded machine may not fit in the budget.
      await pollUntil('a first check to pass', async () => ((await check.failure()) === undefined ? true : undefined), { timeoutMs: 60_000 });
      const verdict = check.failure();
      // The check's one statement is on its way; the server answers while this process is held up.
      await nextTurn();
      holdUp(3 * BUDGET_MS);
      assert.equal(await verdict, undefined, 'the answer already received counts, not the overdue timer');
    } finally {
      check.close();
    }
  });

  test('a server that accepts connections and never answers fails its check, and the next one', async (t) => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      silent.close();
    });
    const port = (silent.address() as { port: number }).port;
    const check = new NodeHealthCheck(db.config, { host: '127.0.0.1', port }, 100);
    // `no answer within 100 ms`, or the driver's own connect timeout's `no answer` when this process was held up past both.
    assert.match(String(await check.failure()), /^no answer/);
    assert.match(String(await check.failure()), /^no answer/, 'and again on the next check, which opens a new connection');
    check.close();
  });
});
