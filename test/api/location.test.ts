import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';

const CONCURRENT_CREATES = 200;

/**
 * Every create answers with the address of the very row it stored, also when concurrent creates
 * share one multi-row INSERT: the ids come from the database (RETURNING), never from arithmetic on
 * LAST_INSERT_ID(), so they hold whatever step the server takes between ids (a Galera cluster
 * steps by its size).
 */
for (const step of [
  { increment: 1, offset: 1 },
  { increment: 3, offset: 2 },
]) {
  describe(`POST /api/users -> 201 with Location, auto_increment_increment ${step.increment}, offset ${step.offset}`, () => {
    let service: RunningService;
    after(() => service?.close());

    test('the service starts with that auto-increment step on every pooled connection', async () => {
      // Two write batches in flight, so multi-row INSERTs also run side by side on separate connections.
      service = await startService(`location_${step.increment}`, {
        poolTuning: { connectionLimit: 10, queueLimit: 5000, connectTimeoutMs: 2000, writeBatchesInFlight: 2, sessionAutoIncrement: step },
      });
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

  });
}
