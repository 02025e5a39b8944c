import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';
import { assertErrorBody, tableSnapshot } from './support/contract.js';

const INVALID_EMAIL = 'email must be a valid email address';
const REQUIRED = 'Name and email required';

let strict: RunningService;
let contract: RunningService;
before(async () => {
  strict = await startService('validate_on', { integrity: { validateEmail: true } });
  contract = await startService('validate_off');
});
after(async () => {
  await strict.close();
  await contract.close();
});

/** Emails VALIDATE_EMAIL=on accepts, and what it stores of each. */
const accepted: Array<[sent: string, stored: string]> = [
  ['plain@example.com', 'plain@example.com'],
  [' E@X.COM ', 'E@X.COM'],
  ['first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk'],
  ["o'brien@example.ie", "o'brien@example.ie"],
  ['ünïcødé@exämple.de', 'ünïcødé@exämple.de'],
  ['root@localhost', 'root@localhost'],
  ['\u00a0no-break-around@example.com\u2003', 'no-break-around@example.com'],
];

/** Emails VALIDATE_EMAIL=on refuses (the contract accepts every one of them). */
const refused: string[] = [
  'plainaddress',
  '@example.com',
  'user@',
  '@',
  'a@b@example.com',
  'user name@example.com',
  'user@exa mple.com',
  'user@example.com\u00a0x',
  'a\u0085b@example.com',
];

async function stored(service: RunningService, id: number): Promise<{ name: string; email: string }> {
  const [row] = await service.db.query<Array<{ name: string; email: string }>>('SELECT name, email FROM users WHERE id = ?', [id]);
  assert.ok(row, `user ${id} is stored`);
  return { name: row.name, email: row.email };
}

async function create(service: RunningService, name: string, email: string): Promise<number> {
  const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name, email } });
  assert.equal(res.status, 201, res.text);
  return Number(res.headers.get('location')!.split('/').pop());
}

describe('VALIDATE_EMAIL=on: POST stores the email trimmed when it looks like one', () => {
  for (const [sent, expected] of accepted) {
    test(`${JSON.stringify(sent)} -> 201, stored and read back as ${JSON.stringify(expected)}`, async () => {
      const id = await create(strict, ' Accepted ', sent);
      assert.deepEqual(await stored(strict, id), { name: 'Accepted', email: expected });
      const read = await request(strict.baseUrl, 'GET', `/api/users/${id}`);
      assert.deepEqual([read.status, (read.json as { email: string }).email], [200, expected]);
    });
  }
});

describe('VALIDATE_EMAIL=on: an email that does not look like one -> 400, nothing stored', () => {
  for (const email of refused) {
    test(`${JSON.stringify(email)} -> 400 {"error": "${INVALID_EMAIL}"}`, async () => {
      const before = await tableSnapshot(strict.db);
      const res = await request(strict.baseUrl, 'POST', '/api/users', { json: { name: 'Refused', email } });
      assert.equal(res.status, 400, res.text);
      assertErrorBody(res, INVALID_EMAIL);
      assert.deepEqual(await tableSnapshot(strict.db), before);
    });
  }
});

describe('VALIDATE_EMAIL off (the contract): every email of both tables is stored exactly as sent', () => {
  for (const email of [...accepted.map(([sent]) => sent), ...refused]) {
    test(`${JSON.stringify(email)} -> 201, stored untrimmed`, async () => {
      const id = await create(contract, ' As sent ', email);
      assert.deepEqual(await stored(contract, id), { name: ' As sent ', email });
    });
  }
});

describe('VALIDATE_EMAIL=on: PUT and PATCH trim and check like POST', () => {
  test('PUT stores name and email trimmed: " E@X.COM " -> "E@X.COM"', async () => {
    const res = await request(strict.baseUrl, 'PUT', '/api/users/1', { json: { name: '  Put Name\t', email: ' E@X.COM ' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await stored(strict, 1), { name: 'Put Name', email: 'E@X.COM' });
  });

  test('PUT with If-Match stores trimmed values too', async () => {
    const etag = (await request(strict.baseUrl, 'GET', '/api/users/2')).headers.get('etag')!;
    const res = await request(strict.baseUrl, 'PUT', '/api/users/2', { json: { name: ' Tagged ', email: ' tagged@example.com ' }, headers: { 'if-match': etag } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await stored(strict, 2), { name: 'Tagged', email: 'tagged@example.com' });
  });

  test('PATCH stores the email trimmed and keeps the name', async () => {
    const before = await stored(strict, 3);
    const res = await request(strict.baseUrl, 'PATCH', '/api/users/3', { json: { email: ' Patched@Example.com ' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await stored(strict, 3), { name: before.name, email: 'Patched@Example.com' });
  });

  const refusals: Array<[rule: string, method: 'PUT' | 'PATCH', body: Record<string, unknown>, message: string]> = [
    ['PUT with an email that does not look like one', 'PUT', { name: 'N', email: 'no-at-sign' }, INVALID_EMAIL],
    ['PATCH with an email that does not look like one', 'PATCH', { email: 'two@at@signs' }, INVALID_EMAIL],
    ['PUT with a whitespace-only name -> the contract message', 'PUT', { name: ' \t ', email: 'ok@example.com' }, REQUIRED],
    ['PUT with a whitespace-only email -> the contract message', 'PUT', { name: 'N', email: '   ' }, REQUIRED],
    ['PATCH with a whitespace-only email keeps its own message', 'PATCH', { email: '  ' }, 'email must not be empty'],
    ['PATCH with a whitespace-only name keeps its own message', 'PATCH', { name: '\u00a0' }, 'name must not be empty'],
  ];
  for (const [rule, method, body, message] of refusals) {
    test(`${rule} -> 400 {"error": "${message}"}, nothing changed`, async () => {
      const before = await tableSnapshot(strict.db);
      const res = await request(strict.baseUrl, method, '/api/users/4', { json: body });
      assert.equal(res.status, 400, res.text);
      assertErrorBody(res, message);
      assert.deepEqual(await tableSnapshot(strict.db), before);
    });
  }

  test('POST with a whitespace-only name -> 400 Name and email required, nothing stored', async () => {
    const before = await tableSnapshot(strict.db);
    const res = await request(strict.baseUrl, 'POST', '/api/users', { json: { name: ' \n ', email: 'ok@example.com' } });
    assert.equal(res.status, 400, res.text);
    assertErrorBody(res, REQUIRED);
    assert.deepEqual(await tableSnapshot(strict.db), before);
  });
});

describe('VALIDATE_EMAIL=on: rows stored before are never rewritten', () => {
  test('a row with surrounding spaces and an invalid email is read back as it is, and a PATCH of its name leaves its email alone', async () => {
    await strict.db.query('INSERT INTO users (name, email) VALUES (?, ?), (?, ?)', [' Legacy Spaced ', ' legacy@example.com ', 'Legacy Invalid', 'not an email']);
    const [spaced, invalid] = await strict.db.query<Array<{ id: number }>>("SELECT id FROM users WHERE name LIKE '%Legacy%' ORDER BY id");
    const read = await request(strict.baseUrl, 'GET', `/api/users/${spaced!.id}`);
    assert.deepEqual([(read.json as { name: string }).name, (read.json as { email: string }).email], [' Legacy Spaced ', ' legacy@example.com ']);

    const renamed = await request(strict.baseUrl, 'PATCH', `/api/users/${invalid!.id}`, { json: { name: ' Renamed ' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(await stored(strict, invalid!.id), { name: 'Renamed', email: 'not an email' });
    assert.deepEqual(await stored(strict, spaced!.id), { name: ' Legacy Spaced ', email: ' legacy@example.com ' });
  });
});
