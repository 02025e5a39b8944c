import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request, type ApiResponse } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';
import { assertErrorBody, tableSnapshot } from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('conditional');
});
after(() => service.close());

const STRONG_TAG = /^"[0-9a-f]{32}"$/;
const PRECONDITION_FAILED = 'The user has changed: If-Match does not match its ETag';
const call = (method: string, path: string, headers: Record<string, string> = {}, json?: unknown): Promise<ApiResponse> =>
  request(service.baseUrl, method, path, { headers, ...(json === undefined ? {} : { json }) });
const etagOf = async (id: number): Promise<string> => {
  const res = await call('GET', `/api/users/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.headers.get('etag') ?? assert.fail('no ETag');
};
const storedUser = async (id: number) =>
  (await service.db.query<Array<{ name: string; email: string }>>('SELECT name, email FROM users WHERE id = ?', [id]))[0];

describe('GET /api/users/{id} carries a strong ETag of the stored fields', () => {
  test('GET and HEAD -> the same strong ETag; it stays while the user is unchanged', async () => {
    const first = await call('GET', '/api/users/1');
    const head = await call('HEAD', '/api/users/1');
    assert.match(first.headers.get('etag') ?? '', STRONG_TAG);
    assert.equal(head.headers.get('etag'), first.headers.get('etag'));
    assert.equal(await etagOf(1), first.headers.get('etag'));
  });

  test('users with different fields have different ETags; a change to any field changes it', async () => {
    const tags = await Promise.all([1, 2, 3].map(etagOf));
    assert.equal(new Set(tags).size, 3);
    const before = tags[0]!;
    await service.db.query("UPDATE users SET email = 'JOHN@example.com' WHERE id = 1");
    const caseOnly = await etagOf(1);
    assert.notEqual(caseOnly, before, 'a change of letter case alone is a new version');
    await service.db.query("UPDATE users SET email = 'john@example.com' WHERE id = 1");
    assert.equal(await etagOf(1), before, 'the same stored fields give the same tag again');
  });

  test('the response to an absent user has no ETag', async () => {
    const res = await call('GET', '/api/users/999999');
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('etag'), null);
  });
});

describe('If-None-Match on GET/HEAD /api/users/{id}', () => {
  const rows: Array<{ rule: string; header: (tag: string) => string; status: number }> = [
    { rule: 'the current tag -> 304', header: (tag) => tag, status: 304 },
    { rule: '* -> 304', header: () => '*', status: 304 },
    { rule: 'a list holding the current tag -> 304', header: (tag) => `"0123", ${tag}, "abc"`, status: 304 },
    { rule: 'the current tag marked weak (weak comparison) -> 304', header: (tag) => `W/${tag}`, status: 304 },
    { rule: 'another tag -> 200 with the body', header: () => '"00000000000000000000000000000000"', status: 200 },
    { rule: 'an unquoted tag (malformed) -> 200 with the body', header: (tag) => tag.slice(1, -1), status: 200 },
  ];
  for (const { rule, header, status } of rows) {
    for (const method of ['GET', 'HEAD']) {
      test(`${method} with If-None-Match: ${rule}`, async () => {
        const tag = await etagOf(2);
        const res = await call(method, '/api/users/2', { 'if-none-match': header(tag) });
        assert.equal(res.status, status, res.text);
        assert.equal(res.headers.get('etag'), tag);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
        assert.match(res.headers.get('access-control-expose-headers') ?? '', /\bETag\b/);
        if (status === 304 || method === 'HEAD') assert.equal(res.text, '');
        else assert.equal((res.json as { id: number }).id, 2);
      });
    }
  }

  test('100 concurrent GETs sharing coalesced reads: each gets 304 or 200 by its own If-None-Match, never a 500', async () => {
    const tags = new Map<number, string>();
    for (const id of [1, 2, 4, 5]) tags.set(id, await etagOf(id));
    const asks = Array.from({ length: 100 }, (_, i) => {
      const id = [1, 2, 4, 5][i % 4]!;
      const fresh = i % 3 !== 0;
      return { id, fresh, sent: call('GET', `/api/users/${id}`, { 'if-none-match': fresh ? tags.get(id)! : '"0"' }) };
    });
    for (const { id, fresh, sent } of asks) {
      const res = await sent;
      assert.equal(res.status, fresh ? 304 : 200, `user ${id}`);
      assert.equal(res.headers.get('etag'), tags.get(id));
    }
  });

  test('If-None-Match: * on an absent user -> 404 User not found (nothing to be unmodified)', async () => {
    const res = await call('GET', '/api/users/999999', { 'if-none-match': '*' });
    assert.equal(res.status, 404);
    assertErrorBody(res, 'User not found');
  });
});

describe('If-Match on PUT, PATCH and DELETE: applied only to the version named, else 412 and nothing changes', () => {
  const writes = [
    { method: 'PUT', json: { name: 'Matched Put', email: 'put@match.example' } },
    { method: 'PATCH', json: { name: 'Matched Patch' } },
    { method: 'DELETE', json: undefined },
  ];
  const STALE = '"ffffffffffffffffffffffffffffffff"';
  let nextId = 100;
  const freshUser = async (): Promise<number> => {
    const id = nextId++;
    await service.db.query('INSERT INTO users (id, name, email) VALUES (?, ?, ?)', [id, `Fresh ${id}`, `fresh${id}@match.example`]);
    return id;
  };

  for (const { method, json } of writes) {
    test(`${method} with a stale If-Match -> 412 {"error"}, the user unchanged`, async () => {
      const id = await freshUser();
      const before = await tableSnapshot(service.db);
      const res = await call(method, `/api/users/${id}`, { 'if-match': STALE }, json);
      assert.equal(res.status, 412, res.text);
      assertErrorBody(res, PRECONDITION_FAILED);
      assert.deepEqual(await tableSnapshot(service.db), before);
    });

    test(`${method} with a weak If-Match of the current tag -> 412 (If-Match compares strongly)`, async () => {
      const id = await freshUser();
      const res = await call(method, `/api/users/${id}`, { 'if-match': `W/${await etagOf(id)}` }, json);
      assert.equal(res.status, 412, res.text);
    });

    test(`${method} with the current tag in If-Match (alone, or in a list) -> 200, applied`, async () => {
      for (const header of [(tag: string) => tag, (tag: string) => `${STALE}, ${tag}`]) {
        const id = await freshUser();
        const tag = await etagOf(id);
        const res = await call(method, `/api/users/${id}`, { 'if-match': header(tag) }, json);
        assert.equal(res.status, 200, res.text);
        const stored = await storedUser(id);
        if (method === 'DELETE') {
          assert.equal(stored, undefined);
          assert.equal(res.headers.get('etag'), null);
        } else {
          assert.equal(stored?.name, (json as { name: string }).name);
          assert.equal(res.headers.get('etag'), await etagOf(id), 'the response carries the new ETag');
          assert.notEqual(res.headers.get('etag'), tag);
        }
      }
    });

    test(`${method} with If-Match: * on an existing user -> 200, applied`, async () => {
      const id = await freshUser();
      const res = await call(method, `/api/users/${id}`, { 'if-match': '*' }, json);
      assert.equal(res.status, 200, res.text);
      if (method !== 'DELETE') assert.equal(res.headers.get('etag'), await etagOf(id));
    });

    test(`${method} of an absent user -> 404 User not found whatever If-Match says`, async () => {
      for (const header of ['*', STALE, 'garbage']) {
        const res = await call(method, '/api/users/999999', { 'if-match': header }, json);
        assert.equal(res.status, 404, `${header}: ${res.text}`);
        assertErrorBody(res, 'User not found');
      }
    });
  }

  test('PUT with If-Match and an invalid body -> 400 first, as without it', async () => {
    const res = await call('PUT', '/api/users/1', { 'if-match': STALE }, { name: '' });
    assert.equal(res.status, 400);
    assertErrorBody(res, 'Name and email required');
  });

  test('a lost update is refused: two clients read the same version, the second write -> 412', async () => {
    const id = await freshUser();
    const tag = await etagOf(id);
    const first = await call('PUT', `/api/users/${id}`, { 'if-match': tag }, { name: 'First writer', email: 'first@match.example' });
    const second = await call('PATCH', `/api/users/${id}`, { 'if-match': tag }, { email: 'second@match.example' });
    assert.deepEqual([first.status, second.status], [200, 412]);
    assert.deepEqual({ ...(await storedUser(id)) }, { name: 'First writer', email: 'first@match.example' });
  });

  test('20 concurrent conflicting PUTs with the same If-Match: exactly one wins, the rest get 412, the stored user is the winner\'s', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await freshUser();
      const tag = await etagOf(id);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call('PUT', `/api/users/${id}`, { 'if-match': tag }, { name: `Racer ${i}`, email: `racer${i}@match.example` }),
        ),
      );
      const statuses = answers.map((res) => res.status);
      assert.equal(statuses.filter((status) => status === 200).length, 1, `round ${round}: ${statuses.join(' ')}`);
      assert.equal(statuses.filter((status) => status === 412).length, 19, `round ${round}: ${statuses.join(' ')}`);
      const winner = answers.findIndex((res) => res.status === 200);
      assert.deepEqual({ ...(await storedUser(id)) }, { name: `Racer ${winner}`, email: `racer${winner}@match.example` });
      assert.equal(answers[winner]!.headers.get('etag'), await etagOf(id));
    }
  });

  test('conditional writes among 100 concurrent unconditional updates (which share batches): stale ones -> 412, current ones -> 200, never a 500', async () => {
    const ids = [await freshUser(), await freshUser()];
    const tags = await Promise.all(ids.map(etagOf));
    const plain = Array.from({ length: 100 }, (_, i) => call('PUT', `/api/users/${10 + (i % 20)}`, {}, { name: `Plain ${i}`, email: `plain${i}@match.example` }));
    const [stale, current] = await Promise.all([
      call('PUT', `/api/users/${ids[0]}`, { 'if-match': STALE }, { name: 'Stale', email: 'stale@match.example' }),
      call('PATCH', `/api/users/${ids[1]}`, { 'if-match': tags[1]! }, { name: 'Current' }),
    ]);
    const plainStatuses = new Set((await Promise.all(plain)).map((res) => res.status));
    assert.deepEqual([stale.status, current.status, [...plainStatuses].sort()], [412, 200, [200, 404]]);
  });

  test('concurrent If-Match DELETE and PUT of one version: exactly one wins; the loser gets 412 or, once the user is gone, 404', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await freshUser();
      const tag = await etagOf(id);
      const [removed, replaced] = await Promise.all([
        call('DELETE', `/api/users/${id}`, { 'if-match': tag }),
        call('PUT', `/api/users/${id}`, { 'if-match': tag }, { name: 'Survivor', email: 'survivor@match.example' }),
      ]);
      const statuses = [removed.status, replaced.status];
      assert.equal(statuses.filter((status) => status === 200).length, 1, statuses.join(' '));
      const stored = await storedUser(id);
      if (removed.status === 200) assert.equal(stored, undefined);
      else assert.deepEqual({ ...stored }, { name: 'Survivor', email: 'survivor@match.example' });
      assert.ok(removed.status === 200 ? replaced.status === 404 || replaced.status === 412 : removed.status === 412);
    }
  });

  test('without If-Match nothing changes: PUT and DELETE answer as the contract says, PUT without an ETag', async () => {
    const id = await freshUser();
    const put = await call('PUT', `/api/users/${id}`, {}, { name: 'Plain', email: 'plain@match.example' });
    assert.equal(put.status, 200);
    assert.deepEqual(put.json, { message: 'User updated successfully' });
    const removed = await call('DELETE', `/api/users/${id}`);
    assert.deepEqual([removed.status, removed.json], [200, { message: 'User deleted successfully' }]);
  });
});
