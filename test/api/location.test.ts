import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { poolTuning } from '../../src/db/pool-tuning.js';
import { createTestDatabase, testServer } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { privateMariaDbSkipReason, startPrivateMariaDb, type PrivateMariaDb } from '../helpers/private-mariadb.js';
import { startService, type RunningService } from '../helpers/service.js';

const CONCURRENT_CREATES = 200;
const STEPS = [
  { increment: 1, offset: 1 },
  { increment: 3, offset: 2 },
];

/**
 * Every create answers with the address of the very row it stored, also when concurrent creates
 * share one multi-row INSERT: the ids come from the database (RETURNING), never from arithmetic on
 * LAST_INSERT_ID(), so they hold whatever step the server takes between ids (a Galera cluster
 * steps by its size) and whatever its auto-increment lock mode.
 */
function locationRules(server: () => typeof testServer, step: { increment: number; offset: number }): void {
  let service: RunningService;
  before(async () => {
    // Two write batches in flight, so multi-row INSERTs also run side by side on separate connections.
    service = await startService(`location_${step.increment}`, {
      db: await createTestDatabase(`location_${step.increment}`, server()),
      poolTuning: poolTuning({ connectionLimit: 10, queueLimit: 5000, connectTimeoutMs: 2000, writeBatchesInFlight: 2, testing: { sessionAutoIncrement: step } }),
    });
  });
  after(async () => {
    await service?.close();
    await service?.db.drop();
  });

  test('one create -> 201, the contract body, and Location: /api/users/{id} of the stored row', async () => {
    const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Located One', email: 'one@loc.example' } });
    assert.equal(res.status, 201);
    assert.deepEqual(res.json, { message: 'User created successfully' });
    const location = res.headers.get('location') ?? '';
    assert.match(location, /^\/api\/users\/[1-9]\d*$/);
    const stored = await service.db.query<Array<{ id: number }>>('SELECT id FROM users WHERE email = ?', ['one@loc.example']);
    assert.deepEqual(location, `/api/users/${stored[0]!.id}`);
  });

  test(`${CONCURRENT_CREATES} concurrent creates: each Location names a distinct row, and GET of it returns exactly the name sent`, async () => {
    const names = Array.from({ length: CONCURRENT_CREATES }, (_, i) => `Concurrent ${step.increment}-${i} ${'é'.repeat(i % 5)}`);
    const created = await Promise.all(
      names.map((name, i) => request(service.baseUrl, 'POST', '/api/users', { json: { name, email: `c${i}@loc.example` } })),
    );
    const locations = created.map((res) => {
      assert.equal(res.status, 201, res.text);
      return res.headers.get('location') ?? '';
    });
    assert.equal(new Set(locations).size, CONCURRENT_CREATES, 'every create got its own address');
    const read = await Promise.all(locations.map((location) => request(service.baseUrl, 'GET', location)));
    assert.deepEqual(
      read.map((res) => (res.json as { name?: string } | undefined)?.name),
      names,
    );
    // The step really applied: ids of these rows are offset + k * increment.
    const ids = locations.map((location) => Number(location.split('/').pop()));
    for (const id of ids) assert.equal((id - step.offset) % step.increment, 0, `id ${id} follows the step`);
  });
}

for (const step of STEPS) {
  describe(`POST /api/users -> 201 with Location, auto_increment_increment ${step.increment}, offset ${step.offset} (shared server)`, () => {
    locationRules(() => testServer, step);
  });
}

describe('POST /api/users -> 201 with Location on a server with innodb_autoinc_lock_mode=2 (interleaved, as Galera requires)', { skip: privateMariaDbSkipReason }, () => {
  let mariadb: PrivateMariaDb;
  before(async () => {
    mariadb = await startPrivateMariaDb(['--innodb-autoinc-lock-mode=2']);
  });
  after(() => mariadb?.stop());

  test('the private server really runs in lock mode 2', async () => {
    const connection = await mysql.createConnection(mariadb.server);
    try {
      const [rows] = await connection.query('SELECT @@innodb_autoinc_lock_mode AS mode');
      assert.equal(Number((rows as Array<{ mode: unknown }>)[0]!.mode), 2);
    } finally {
      await connection.end();
    }
  });

  for (const step of STEPS) {
    describe(`auto_increment_increment ${step.increment}, offset ${step.offset}`, () => {
      locationRules(() => mariadb.server, step);
    });
  }
});
