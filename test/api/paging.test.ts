import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { assertErrorBody, JSON_CONTENT_TYPE, usersFromDatabase, type ApiUser } from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('paging');
  // Gaps in the ids, as deletes leave them: 1..10 seeded, 3 and 7 removed, 11..25 added.
  await service.db.query('DELETE FROM users WHERE id IN (3, 7)');
  for (let i = 11; i <= 25; i++) await service.db.query('INSERT INTO users (name, email) VALUES (?, ?)', [`Paged ${i}`, `p${i}@page.example`]);
  // Rows JSON must escape, and Unicode, travel in pages as in the whole list.
  await service.db.query('INSERT INTO users (name, email) VALUES (?, ?), (?, ?)', ['Quote " and \\ back', 'q@page.example', '山田 🎉', 'y@page.example']);
});
after(() => service.close());

const list = (query: string) => request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}${query}`);
const NEXT = /^<\/api\/users\?limit=(\d+)&after=(\d+)>; rel="next"$/;

describe('GET /api/users?limit=N&after=ID: one page of the list', () => {
  test('limit=5 -> 200, the first 5 users by id, and a Link to the next page without pwd', async () => {
    const res = await list('&limit=5');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
    const all = await usersFromDatabase(service.db);
    assert.deepEqual(res.json, all.slice(0, 5));
    assert.equal(res.headers.get('link'), `</api/users?limit=5&after=${all[4]!.id}>; rel="next"`);
  });

  test('after=ID -> only users with an id above ID (an id that no longer exists works too)', async () => {
    const res = await list('&limit=3&after=3');
    assert.deepEqual((res.json as ApiUser[]).map((user) => user.id), [4, 5, 6]);
  });

  test('following every Link from limit=4 walks the whole list once, in order, and the last page has no Link', async () => {
    const seen: ApiUser[] = [];
    let query = '&limit=4';
    for (let pages = 0; pages < 50; pages++) {
      const res = await list(query);
      assert.equal(res.status, 200, res.text);
      seen.push(...(res.json as ApiUser[]));
      const link = res.headers.get('link');
      if (link === null) break;
      const [, limit, afterId] = NEXT.exec(link) ?? assert.fail(`Link is ${link}`);
      query = `&limit=${limit}&after=${afterId}`;
    }
    assert.deepEqual(seen, await usersFromDatabase(service.db));
  });

  test('a last page that is exactly full has no Link (no empty page to follow)', async () => {
    const all = await usersFromDatabase(service.db);
    const res = await list(`&limit=2&after=${all[all.length - 3]!.id}`);
    assert.equal((res.json as ApiUser[]).length, 2);
    assert.equal(res.headers.get('link'), null);
  });

  test('after beyond the last id, even beyond the id column -> 200 []', async () => {
    for (const afterId of ['1000000', '2147483647', '99999999999999999999999']) {
      const res = await list(`&limit=10&after=${afterId}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, []);
      assert.equal(res.headers.get('link'), null);
    }
  });

  test('limit=1000 (the maximum) -> every user when fewer, no Link', async () => {
    const res = await list('&limit=1000');
    assert.deepEqual(res.json, await usersFromDatabase(service.db));
    assert.equal(res.headers.get('link'), null);
  });

  test('HEAD of a page -> 200 with the Link and no body', async () => {
    const res = await request(service.baseUrl, 'HEAD', `/api/users?pwd=${TEST_PASSWORD}&limit=2`);
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
    assert.match(res.headers.get('link') ?? '', NEXT);
  });

  test('without limit -> the whole list exactly as before, no Link', async () => {
    const res = await list('');
    assert.deepEqual(res.json, await usersFromDatabase(service.db));
    assert.equal(res.headers.get('link'), null);
  });
});

describe('paging parameters that are not canonical non-negative integers -> 400 naming the parameter', () => {
  const LIMIT = 'limit must be an integer from 1 to 1000';
  const AFTER = 'after must be a non-negative integer';
  const rows: Array<[query: string, error: string]> = [
    ['limit=0', LIMIT],
    ['limit=1001', LIMIT],
    ['limit=99999999999999999999', LIMIT],
    ['limit=-1', LIMIT],
    ['limit=+5', LIMIT],
    ['limit=05', LIMIT],
    ['limit=1.5', LIMIT],
    ['limit=1e2', LIMIT],
    ['limit=abc', LIMIT],
    ['limit=', LIMIT],
    ['limit', LIMIT],
    ['limit=%205', LIMIT],
    ['limit=5&limit=6', LIMIT],
    ['limit=5&after=-1', AFTER],
    ['limit=5&after=01', AFTER],
    ['limit=5&after=1.0', AFTER],
    ['limit=5&after=x', AFTER],
    ['limit=5&after=', AFTER],
    ['limit=5&after=1&after=2', AFTER],
    ['after=5', 'after requires limit'],
  ];
  for (const [query, error] of rows) {
    test(`?pwd=…&${query} -> 400 ${error}`, async () => {
      const res = await list(`&${query}`);
      assert.equal(res.status, 400, res.text);
      assertErrorBody(res, error);
    });
  }

  test('the password is checked first: a wrong pwd with a bad limit -> 401, not 400', async () => {
    for (const path of ['/api/users?pwd=wrong&limit=0', '/api/users?limit=abc', '/api/users?after=x']) {
      const res = await request(service.baseUrl, 'GET', path);
      assert.equal(res.status, 401, path);
      assertErrorBody(res, 'Invalid password');
    }
  });
});
