import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';
import { TEST_PASSWORD } from '../helpers/service.js';

const WRITERS = 16;
/** Acknowledged creates to wait for before the kill: the storm is well under way by then. */
const ACKNOWLEDGED_BEFORE_KILL = 150;

let db: TestDatabase;
const children: ChildService[] = [];
before(async () => {
  db = await createTestDatabase('sigkill');
});
after(async () => {
  for (const child of children) await child.process.stop();
  await db.drop();
});

interface Storm {
  acknowledged: string[];
  /** Emails whose create got no answer or a failure: their outcome is unknown to the client. */
  unanswered: string[];
  done: Promise<void>;
}

/** WRITERS loops, each creating users one after another until its requests start failing. */
function writeStorm(baseUrl: string): Storm {
  const storm: Storm = { acknowledged: [], unanswered: [], done: Promise.resolve() };
  const writer = async (writerId: number): Promise<void> => {
    for (let i = 0; ; i++) {
      const email = `storm-${writerId}-${i}@example.com`;
      try {
        const res = await fetch(`${baseUrl}/api/users`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Storm ${writerId} ${i}`, email }),
          signal: AbortSignal.timeout(15_000),
        });
        await res.text();
        if (res.status === 201) {
          storm.acknowledged.push(email);
          continue;
        }
      } catch {
        // The service is gone: this request and the writer end here.
      }
      storm.unanswered.push(email);
      return;
    }
  };
  storm.done = Promise.all(Array.from({ length: WRITERS }, (_, id) => writer(id))).then(() => {});
  return storm;
}

describe('SIGKILL in the middle of a write storm', () => {
  test('after a restart every acknowledged create is in the table exactly once, and nothing else was stored but the creates in flight at the kill', async () => {
    const first = await spawnService(db.config);
    children.push(first);
    const storm = writeStorm(first.baseUrl);
    await pollUntil(`${ACKNOWLEDGED_BEFORE_KILL} acknowledged creates`, () =>
      storm.acknowledged.length >= ACKNOWLEDGED_BEFORE_KILL ? true : undefined,
    );
    first.process.signal('SIGKILL');
    assert.deepEqual(await first.process.exited, { code: null, signal: 'SIGKILL' });
    await storm.done;

    const second = await spawnService(db.config);
    children.push(second);
    const rows = await db.query<Array<{ email: string; copies: number }>>(
      "SELECT email, COUNT(*) AS copies FROM users WHERE email LIKE 'storm-%' GROUP BY email",
    );
    const stored = new Map(rows.map((row) => [row.email, Number(row.copies)]));
    const lost = storm.acknowledged.filter((email) => stored.get(email) !== 1);
    assert.deepEqual(lost, [], 'acknowledged creates missing or duplicated after the restart');
    const unacknowledged = [...stored.keys()].filter((email) => !storm.acknowledged.includes(email));
    for (const email of unacknowledged) assert.ok(storm.unanswered.includes(email), `${email} was never sent as a create in flight`);
    assert.ok(unacknowledged.length <= WRITERS, 'at most one create per writer was in flight at the kill');

    const list = await fetch(`${second.baseUrl}/api/users?pwd=${TEST_PASSWORD}`);
    const listed = new Set(((await list.json()) as Array<{ email: string }>).map((user) => user.email));
    assert.deepEqual(storm.acknowledged.filter((email) => !listed.has(email)), [], 'the restarted service lists every acknowledged create');
  });
});
