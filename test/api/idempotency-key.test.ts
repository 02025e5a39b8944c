import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';

const created = { message: 'User created successfully' };
const post = (service: RunningService, key: string | undefined, json: unknown) =>
  request(service.baseUrl, 'POST', '/api/users', { json, ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }) });
const usersNamed = async (service: RunningService, name: string) => (await service.db.users()).filter((user) => user.name === name);

describe('IDEMPOTENCY=on: POST /api/users with an Idempotency-Key', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('idempotency', { idempotency: { ttlSeconds: 86_400 } });
  });
  after(() => service.close());

  test('the same key and body again: the first answer (201, body, Location), marked replayed, and one user', async () => {
    const key = randomUUID();
    const first = await post(service, key, { name: 'Idem One', email: 'one@idem.io' });
    const again = await post(service, key, { name: 'Idem One', email: 'one@idem.io' });
    assert.equal(first.status, 201);
    assert.deepEqual(first.json, created);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    assert.equal(again.status, 201);
    assert.deepEqual(again.json, created);
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal((await usersNamed(service, 'Idem One')).length, 1);
  });

  test('the key as a structured-field string ("…") names the same key as bare', async () => {
    const key = randomUUID();
    const first = await post(service, key, { name: 'Idem Quoted', email: 'q@idem.io' });
    const again = await post(service, `"${key}"`, { name: 'Idem Quoted', email: 'q@idem.io' });
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal((await usersNamed(service, 'Idem Quoted')).length, 1);
  });

  test('the same key with another body -> 422 JSON error, nothing stored', async () => {
    const key = randomUUID();
    assert.equal((await post(service, key, { name: 'Idem Two', email: 'two@idem.io' })).status, 201);
    const other = await post(service, key, { name: 'Idem Other', email: 'two@idem.io' });
    assert.equal(other.status, 422);
    assert.deepEqual(other.json, { error: 'Idempotency-Key already used with a different request body' });
    assert.equal((await usersNamed(service, 'Idem Other')).length, 0);
  });

  test('the same key sent again while its first request is still being answered -> 409 JSON error; one user', async () => {
    const key = randomUUID();
    // Both leave together: the second arrives while the first's transaction is open.
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(service, key, { name: 'Idem Race', email: 'race@idem.io' })));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.ok(statuses.every((status) => status === 201 || status === 409), `statuses: ${statuses.join(',')}`);
    assert.ok(statuses.includes(409), `one was refused as in flight: ${statuses.join(',')}`);
    for (const answer of answers.filter((each) => each.status === 409)) {
      assert.deepEqual(answer.json, { error: 'A request with this Idempotency-Key is still in progress' });
    }
    assert.equal((await usersNamed(service, 'Idem Race')).length, 1);
  });

  for (const [label, key] of [
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space inside', 'two words'],
    ['a non-ASCII character', 'clé'],
  ] as const) {
    test(`a malformed key (${label}) -> 400 JSON error, nothing stored`, async () => {
      const res = await request(service.baseUrl, 'POST', '/api/users', {
        json: { name: `Idem Bad ${label}`, email: 'bad@idem.io' },
        headers: { 'idempotency-key': key },
      }).catch((error: unknown) => ({ status: 0, json: String(error) }));
      // fetch refuses to send some header values itself (non-Latin-1): then nothing reached the service.
      if (res.status === 0) return;
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { error: 'Idempotency-Key must be 1-255 visible ASCII characters' });
      assert.equal((await usersNamed(service, `Idem Bad ${label}`)).length, 0);
    });
  }

  test('a key of 255 characters is accepted', async () => {
    assert.equal((await post(service, 'k'.repeat(254) + randomUUID().slice(0, 1), { name: 'Idem Long', email: 'l@idem.io' })).status, 201);
  });

  test('without the header nothing changes: each POST a user', async () => {
    assert.equal((await post(service, undefined, { name: 'Idem None', email: 'n@idem.io' })).status, 201);
    assert.equal((await post(service, undefined, { name: 'Idem None', email: 'n@idem.io' })).status, 201);
    assert.equal((await usersNamed(service, 'Idem None')).length, 2);
  });

  test('the key is kept in the database: a second service on the same database replays the first answer', async () => {
    const key = randomUUID();
    const first = await post(service, key, { name: 'Idem Shared', email: 's@idem.io' });
    const other = await startService('idempotency_other', { db: service.db, idempotency: { ttlSeconds: 86_400 } });
    try {
      const again = await post(other, key, { name: 'Idem Shared', email: 's@idem.io' });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('location'), first.headers.get('location'));
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
    } finally {
      await other.close();
    }
    assert.equal((await usersNamed(service, 'Idem Shared')).length, 1);
  });

  test('a key past its retention is free again: the request is run anew', async () => {
    const key = randomUUID();
    assert.equal((await post(service, key, { name: 'Idem Old', email: 'o@idem.io' })).status, 201);
    await service.db.query('UPDATE idempotency_keys SET created_at = NOW(6) - INTERVAL 2 DAY WHERE idem_key = ?', [key]);
    const again = await post(service, key, { name: 'Idem Old', email: 'o@idem.io' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), null);
    assert.equal((await usersNamed(service, 'Idem Old')).length, 2);
  });
});

describe('IDEMPOTENCY off (the default): the header is ignored, as the contract has it', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('idempotency_off');
  });
  after(() => service.close());

  test('the same key twice creates two users; an empty key is no error', async () => {
    const key = randomUUID();
    assert.equal((await post(service, key, { name: 'Plain', email: 'p@idem.io' })).status, 201);
    assert.equal((await post(service, key, { name: 'Plain', email: 'p@idem.io' })).status, 201);
    assert.equal((await post(service, '', { name: 'Plain', email: 'p@idem.io' })).status, 201);
    assert.equal((await usersNamed(service, 'Plain')).length, 3);
    assert.deepEqual(await service.db.query("SHOW TABLES LIKE 'idempotency_keys'"), [], 'no table is added');
  });
});
