import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { poolTuning } from '../../src/db/pool-tuning.js';
import { sql } from '../../src/db/statements.js';
import { request } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';
import { assertErrorBody } from './support/contract.js';
import { assertUniqueEmailIndex, inOneBatch, usersWithEmail, type SentWrite } from './support/unique-email.js';

const IN_USE = 'Email already in use';

let service: RunningService;
before(async () => {
  // A budget well beyond the time the table stays locked, so that no write runs out of it while held.
  service = await startService('unique_batches', { integrity: { uniqueEmail: true }, poolTuning: poolTuning({ operationTimeoutMs: 20_000 }) });
  await assertUniqueEmailIndex(service.db);
});
after(() => service.close());

const post = (name: string, email: string) => () => request(service.baseUrl, 'POST', '/api/users', { json: { name, email } });
const put = (id: number, name: string, email: string) => () => request(service.baseUrl, 'PUT', `/api/users/${id}`, { json: { name, email } });

/** The writes sent as `statement`. */
const sentAs = (writes: SentWrite[], statement: string): SentWrite[] => writes.filter((write) => write.statement === statement);

async function storedRow(id: number): Promise<{ name: string; email: string } | undefined> {
  const [row] = await service.db.query<Array<{ name: string; email: string }>>('SELECT name, email FROM users WHERE id = ?', [id]);
  return row && { name: row.name, email: row.email };
}

describe('UNIQUE_EMAIL=on: coalesced creates that meet a taken email are written one by one', () => {
  test('20 creates with one email in one shared INSERT -> exactly one 201 and nineteen 409; one user stored', async () => {
    const emails = Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? 'SHARED@example.com' : 'shared@example.com'));
    const { blocked, answers, writes } = await inOneBatch(service, 'create', post('Blocker', 'blocker-1@example.com'), emails.map((email, i) => post(`Shared ${i}`, email)));
    assert.equal(blocked.status, 201, blocked.text);

    const shared = sentAs(writes, sql.createUsers(20));
    assert.equal(shared.length, 1, 'the 20 creates left in one INSERT ... RETURNING');
    assert.deepEqual(shared[0]!.values, emails.flatMap((email, i) => [`Shared ${i}`, email]));
    assert.equal(sentAs(writes, sql.createUser).length, 1 + 20, "the blocker's own INSERT, then each of the 20 alone");

    const statuses = answers.map((answer) => answer.status);
    assert.deepEqual([statuses.filter((s) => s === 201).length, statuses.filter((s) => s === 409).length], [1, 19], String(statuses));
    for (const answer of answers.filter((a) => a.status === 409)) assertErrorBody(answer, IN_USE);
    assert.equal(await usersWithEmail(service.db, 'shared@example.com'), 1);
  });

  test('one shared INSERT with fresh and taken emails -> the fresh rows are stored and 201, the taken ones 409', async () => {
    const rows: Array<[name: string, email: string, status: number]> = [
      ['Fresh A', 'fresh-a@example.com', 201],
      ['Taken John', 'JOHN@example.com', 409],
      ['Fresh B', 'fresh-b@example.com', 201],
      ['Fresh C', 'Fresh-C@Example.com', 201],
      ['Taken Jane', 'jane@EXAMPLE.com', 409],
      ['Fresh D', 'fresh-d@example.com', 201],
    ];
    const { answers, writes } = await inOneBatch(service, 'create', post('Blocker', 'blocker-2@example.com'), rows.map(([name, email]) => post(name, email)));

    assert.equal(sentAs(writes, sql.createUsers(rows.length)).length, 1, `the ${rows.length} creates left in one INSERT ... RETURNING`);
    assert.deepEqual(answers.map((answer) => answer.status), rows.map(([, , status]) => status), answers.map((a) => a.text).join(' | '));
    for (const [i, [name, email, status]] of rows.entries()) {
      if (status === 409) {
        assertErrorBody(answers[i]!, IN_USE);
        assert.equal(await usersWithEmail(service.db, email), 1, `${email}: still only the seed user`);
      } else {
        const id = Number(answers[i]!.headers.get('location')!.split('/').pop());
        assert.deepEqual(await storedRow(id), { name, email }, 'stored under the id its Location names');
      }
    }
  });
});

describe('UNIQUE_EMAIL=on: coalesced updates that meet a taken email are written one by one', () => {
  test('one shared UPDATE ... CASE with a taken email -> the others are stored and 200, the taken one 409', async () => {
    // Seed users: 4 is bob@example.com, 6 diana@example.com.
    const before3 = await storedRow(3);
    const rows: Array<[id: number, name: string, email: string, status: number]> = [
      [3, 'Alice as Bob', 'Bob@Example.com', 409],
      [5, 'Charlie', 'charlie-new@example.com', 200],
      [6, 'Diana', 'DIANA@example.com', 200],
      [7, 'Ethan', 'ethan-new@example.com', 200],
    ];
    const { blocked, answers, writes } = await inOneBatch(service, 'update', put(10, 'Hannah', 'hannah-new@example.com'), rows.map(([id, name, email]) => put(id, name, email)));
    assert.equal(blocked.status, 200, blocked.text);

    assert.equal(sentAs(writes, sql.updateUsers(rows.length)).length, 1, `the ${rows.length} updates left in one UPDATE ... CASE`);
    assert.deepEqual(answers.map((answer) => answer.status), rows.map(([, , , status]) => status), answers.map((a) => a.text).join(' | '));
    assertErrorBody(answers[0]!, IN_USE);
    assert.deepEqual(await storedRow(3), before3, 'the refused update changed nothing');
    for (const [id, name, email] of rows.slice(1)) assert.deepEqual(await storedRow(id), { name, email });
    assert.equal(await usersWithEmail(service.db, 'bob@example.com'), 1);
  });
});
