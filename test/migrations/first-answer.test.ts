import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/poll-until.js';
import { dbEnv } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { bulkUsers, judgeStart, pollFromTheStart, type Answer } from './support/first-answers.js';
import { createOldSchema } from './support/schema-state.js';

/**
 * A start as a client meets it from outside, asking from the moment the service listens: until the
 * schema is usable it is refused (503 with Retry-After), then served for good; never a 500 from the
 * start itself, never a refusal after a success, index builds run while it is served.
 */

const servedKinds = (answers: readonly Answer[]) => new Set(answers.filter((answer) => answer.status >= 200 && answer.status < 300).map((answer) => answer.kind));

const serve = (db: { config: Parameters<typeof dbEnv>[0] }, env: Record<string, string>) =>
  new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, ...env });

describe('one readiness transition per start', () => {
  for (const workers of ['1', '2']) {
    test(`a new database with EVENTS=on and IDEMPOTENCY=on at WORKERS=${workers}: no 500, no refusal after the first success, and keyed creates work on every worker`, async () => {
      const db = await createTestDatabase(`first_new_w${workers}`);
      const service = serve(db, { EVENTS: 'on', IDEMPOTENCY: 'on', WORKERS: workers });
      try {
        const baseUrl = `http://127.0.0.1:${await service.port()}`;
        const client = pollFromTheStart(baseUrl, true);
        await service.logEntry('schema migrated', 30_000);
        await pollUntil('a few answers after the set-up', () => (client.answers.length > 40 ? true : undefined), { timeoutMs: 20_000 });
        await client.stop();
        const verdict = judgeStart(client.answers);
        assert.notEqual(verdict.firstSuccess, undefined, 'the service came to serve');
        assert.deepEqual(verdict.errors, [], 'no 500 during the start');
        assert.deepEqual(verdict.refusedAfterSuccess, [], 'no refusal after the first success');
        for (let i = 0; i < 6; i++) {
          const again = await fetch(`${baseUrl}/api/users`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': 'replayed-once' },
            body: JSON.stringify({ name: 'Keyed', email: 'keyed@example.com' }),
          });
          assert.equal(again.status, 201, await again.text());
          assert.equal(again.headers.get('idempotent-replayed'), i === 0 ? null : 'true', 'the key replays on whichever worker answers');
        }
      } finally {
        await service.stop();
        await db.drop();
      }
    });
  }

  test('an upgrade of the contract\'s bare table of 300 000 users: the indexes build while reads and creates are served, no refusal after the first success, and a 200 000-row list right after the first answer is whole', async () => {
    const db = await createTestDatabase('first_upgrade');
    await createOldSchema(db);
    await bulkUsers(db, 300_000);
    const service = serve(db, {});
    try {
      const baseUrl = `http://127.0.0.1:${await service.port()}`;
      const client = pollFromTheStart(baseUrl, false);
      await pollUntil('a first success', () => (judgeStart(client.answers).firstSuccess === undefined ? undefined : true), { timeoutMs: 30_000, intervalMs: 10 });
      // The whole list keeps this process and the service busy for about a second, as long as the
      // builds may take: the poller's first served read and create come first, or none fall inside them.
      await pollUntil('a read and a create served', () => (servedKinds(client.answers).size === 2 ? true : undefined), { timeoutMs: 30_000, intervalMs: 5 });
      const list = await fetch(`${baseUrl}/api/users?pwd=${TEST_PASSWORD}`);
      assert.equal(list.status, 200);
      const users = (await list.json()) as unknown[];
      assert.ok(users.length >= 300_010, `the whole list: ${users.length} users`);
      const ready = Date.parse(String((await service.logEntry('schema ready')).time));
      const migrated = Date.parse(String((await service.logEntry('schema migrated', 120_000)).time));
      await client.stop();
      const builds = service.entries().filter((entry) => entry.msg === 'migration applied');
      assert.deepEqual(builds.map((entry) => entry.version), [1, 2, 3]);
      assert.ok(builds.every((entry) => Date.parse(String(entry.time)) >= ready), 'every index was built after the API began serving');
      const verdict = judgeStart(client.answers);
      assert.deepEqual(verdict.errors, [], 'no 500');
      assert.deepEqual(verdict.refusedAfterSuccess, [], 'no refusal after the first success');
      const duringBuilds = servedKinds(client.answers.filter((answer) => answer.at > ready && answer.at < migrated));
      assert.equal(duringBuilds.size, 2, 'reads and creates were served while the indexes built');
    } finally {
      await service.stop();
      await db.drop();
    }
  });

  test('after a kill -9 and a restart, 60 creates sent at once right after the first success are all served', async () => {
    const db = await createTestDatabase('first_restart');
    const first = serve(db, { EVENTS: 'on' });
    try {
      await first.logEntry('schema migrated', 30_000);
      first.signal('SIGKILL');
      await first.exited;
    } finally {
      await first.stop();
    }
    const again = serve(db, { EVENTS: 'on' });
    try {
      const baseUrl = `http://127.0.0.1:${await again.port()}`;
      const client = pollFromTheStart(baseUrl, false, 5);
      await pollUntil('a first success', () => (judgeStart(client.answers).firstSuccess === undefined ? undefined : true), { timeoutMs: 30_000, intervalMs: 5 });
      const statuses = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          fetch(`${baseUrl}/api/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `Burst ${i}`, email: `burst-${i}@example.com` }) }).then(async (res) => {
            await res.body?.cancel();
            return res.status;
          }),
        ),
      );
      await client.stop();
      assert.deepEqual(statuses.filter((status) => status !== 201), [], 'every create of the burst served');
      assert.deepEqual(judgeStart(client.answers).refusedAfterSuccess, []);
    } finally {
      await again.stop();
      await db.drop();
    }
  });
});
