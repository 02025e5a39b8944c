import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request, type ApiResponse } from '../helpers/http.js';
import { countOf, scrape, valueOf } from '../helpers/metrics.js';
import { startService, type RunningService } from '../helpers/service.js';
import { assertErrorBody, tableSnapshot } from './support/contract.js';
import { assertUniqueEmailIndex, usersWithEmail } from './support/unique-email.js';

const IN_USE = 'Email already in use';

let unique: RunningService;
let both: RunningService;
let contract: RunningService;
before(async () => {
  unique = await startService('unique_on', { integrity: { uniqueEmail: true }, metrics: { onApiPort: true } });
  both = await startService('unique_valid', { integrity: { uniqueEmail: true, validateEmail: true } });
  contract = await startService('unique_off');
  await assertUniqueEmailIndex(unique.db);
  await assertUniqueEmailIndex(both.db);
});
after(async () => {
  await unique.close();
  await both.close();
  await contract.close();
});

const etagOf = async (service: RunningService, id: number): Promise<string> =>
  (await request(service.baseUrl, 'GET', `/api/users/${id}`)).headers.get('etag')!;

/** A write by method, with If-Match (the user's current ETag) when `tagged`. */
async function send(service: RunningService, method: 'POST' | 'PUT' | 'PATCH', id: number, body: Record<string, string>, tagged = false): Promise<ApiResponse> {
  const path = method === 'POST' ? '/api/users' : `/api/users/${id}`;
  const headers = tagged ? { 'if-match': await etagOf(service, id) } : undefined;
  return request(service.baseUrl, method, path, { json: body, ...(headers ? { headers } : {}) });
}

// The seed users: 2 is jane@example.com, 4 bob@example.com, 6 diana@example.com.
describe('UNIQUE_EMAIL=on: a write giving a user another user\'s email (any case) -> 409, nothing stored', () => {
  const rows: Array<[rule: string, method: 'POST' | 'PUT' | 'PATCH', id: number, body: Record<string, string>, tagged?: boolean]> = [
    ['POST with an email taken in another case', 'POST', 0, { name: 'Second Jane', email: 'JANE@example.com' }],
    ['PUT with an email taken in another case', 'PUT', 1, { name: 'John', email: 'Jane@Example.COM' }],
    ['PUT with If-Match and an email taken in another case', 'PUT', 1, { name: 'John', email: 'jane@EXAMPLE.com' }, true],
    ['PATCH of the email only, taken in another case', 'PATCH', 3, { email: 'BOB@example.com' }],
    ['PATCH with If-Match, the email taken exactly', 'PATCH', 3, { name: 'Alice', email: 'bob@example.com' }, true],
  ];
  for (const [rule, method, id, body, tagged] of rows) {
    test(`${rule} -> 409 {"error": "${IN_USE}"}`, async () => {
      const before = await tableSnapshot(unique.db);
      const res = await send(unique, method, id, body, tagged);
      assert.equal(res.status, 409, res.text);
      assertErrorBody(res, IN_USE);
      assert.deepEqual(await tableSnapshot(unique.db), before);
    });
  }

  test('with VALIDATE_EMAIL=on too, the email is trimmed before it is compared: " JANE@example.com" -> 409', async () => {
    const before = await tableSnapshot(both.db);
    const res = await send(both, 'POST', 0, { name: 'Padded Jane', email: ' JANE@example.com' });
    assert.equal(res.status, 409, res.text);
    assertErrorBody(res, IN_USE);
    assert.deepEqual(await tableSnapshot(both.db), before);
  });

  test('PUT to a missing id with a taken email -> 404 User not found (nothing to write, so no conflict)', async () => {
    const res = await send(unique, 'PUT', 999_999, { name: 'Ghost', email: 'jane@example.com' });
    assert.equal(res.status, 404, res.text);
    assertErrorBody(res, 'User not found');
  });
});

describe('UNIQUE_EMAIL=on: a user may keep its own email, in any case', () => {
  const rows: Array<[rule: string, method: 'PUT' | 'PATCH', body: Record<string, string>, tagged?: boolean]> = [
    ['PUT with its own email in capitals', 'PUT', { name: 'Diana E.', email: 'DIANA@EXAMPLE.COM' }],
    ['PUT with If-Match and its own email in another case', 'PUT', { name: 'Diana E.', email: 'Diana@Example.com' }, true],
    ['PATCH of the name only', 'PATCH', { name: 'Diana Evans' }],
    ['PATCH with its own email as stored', 'PATCH', { email: 'diana@example.com' }, true],
  ];
  for (const [rule, method, body, tagged] of rows) {
    test(`${rule} -> 200, stored as sent`, async () => {
      const res = await send(unique, method, 6, body, tagged);
      assert.equal(res.status, 200, res.text);
      const [row] = await unique.db.query<Array<{ name: string; email: string }>>('SELECT name, email FROM users WHERE id = 6');
      if (body.name) assert.equal(row!.name, body.name);
      if (body.email) assert.equal(row!.email, body.email);
    });
  }
});

describe('UNIQUE_EMAIL=on: a conflict is the client\'s, not a database failure', () => {
  test('counted as outcome "conflict" (not "error") and no error is logged', async () => {
    const before = await scrape(`${unique.baseUrl}/metrics`);
    const logged = unique.logs.length;
    const res = await send(unique, 'POST', 0, { name: 'Counted', email: 'Bob@example.com' });
    assert.equal(res.status, 409, res.text);
    const after = await scrape(`${unique.baseUrl}/metrics`);
    const delta = (outcome: string) => valueOf(after, 'db_operations_total', { kind: 'create', outcome }) - valueOf(before, 'db_operations_total', { kind: 'create', outcome });
    assert.deepEqual([delta('conflict'), delta('error')], [1, 0]);
    assert.ok(countOf(after, 'db_batch_size', { kind: 'create' }) > countOf(before, 'db_batch_size', { kind: 'create' }));
    const errors = unique.logs.slice(logged).filter((line) => (JSON.parse(line) as { level: string }).level === 'error');
    assert.deepEqual(errors, []);
  });

  test('20 concurrent creates with one email (cases differ) -> exactly one 201 and nineteen 409; one user stored', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(unique, 'POST', 0, { name: `Racer ${i}`, email: i % 2 ? 'RACE@example.com' : 'race@example.com' })),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.deepEqual([statuses.filter((s) => s === 201).length, statuses.filter((s) => s === 409).length], [1, 19], String(statuses));
    assert.equal(await usersWithEmail(unique.db, 'race@example.com'), 1);
  });
});

describe('UNIQUE_EMAIL off, no unique index: duplicates are accepted as the contract allows', () => {
  test('the start builds no unique index on email', async () => {
    const rows = await contract.db.query<unknown[]>("SELECT 1 FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name = 'users_email_unique'");
    assert.equal(rows.length, 0);
  });

  test('POST with a taken email -> 201, and both users are stored', async () => {
    const res = await send(contract, 'POST', 0, { name: 'Another Jane', email: 'JANE@example.com' });
    assert.equal(res.status, 201, res.text);
    assert.equal(await usersWithEmail(contract.db, 'jane@example.com'), 2);
  });

  test('PUT and PATCH to another user\'s email -> 200, stored', async () => {
    assert.equal((await send(contract, 'PUT', 1, { name: 'John', email: 'bob@example.com' })).status, 200);
    assert.equal((await send(contract, 'PATCH', 3, { email: 'bob@example.com' }, true)).status, 200);
    assert.equal(await usersWithEmail(contract.db, 'bob@example.com'), 3);
  });
});
