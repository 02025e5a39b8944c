import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request, type ApiResponse } from '../helpers/http.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { assertErrorBody, usersFromDatabase, type ApiUser } from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('finding');
  const rows: Array<[string, string, string | null]> = [
    ['anna Lee', 'Anna.Lee@Example.com', '2024-01-02 03:04:05'],
    ['Anna Lee', 'anna2@example.org', '2024-01-02 03:04:05'],
    ['ANNA LEE', 'third@annals.example', null],
    ['Zoë Åberg', 'zoe@example.net', '2023-05-06 07:08:09'],
    ['100% real', 'under_score@example.com', null],
    ['Bob Brown', 'BOB@example.com', '2025-02-03 04:05:06'],
    ['Quote " and \\ back', 'q@example.com', '2022-01-01 00:00:00'],
  ];
  for (const [name, email, createdAt] of rows) {
    await service.db.query('INSERT INTO users (name, email, created_at) VALUES (?, ?, ?)', [name, email, createdAt]);
  }
});
after(() => service.close());

const list = (query: string, headers: Record<string, string> = {}) =>
  request(service.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}${query}`, { headers });
const ids = (res: ApiResponse) => (res.json as ApiUser[]).map((user) => user.id);
/** The database's own answer: the reference every order and filter is checked against. */
const idsWhere = async (where: string, values: unknown[] = [], order = 'id') =>
  (await service.db.query<Array<{ id: number }>>(`SELECT id FROM users ${where} ORDER BY ${order}`, values)).map((row) => row.id);

/** Follows every `next` Link from the first page; returns each page's users. */
async function walk(query: string, onPage: () => Promise<void> = async () => {}): Promise<ApiUser[][]> {
  const pages: ApiUser[][] = [];
  let next: string | undefined = `/api/users?pwd=${TEST_PASSWORD}${query}`;
  while (next !== undefined && pages.length < 500) {
    const res = await request(service.baseUrl, 'GET', next);
    assert.equal(res.status, 200, res.text);
    pages.push(res.json as ApiUser[]);
    const link = res.headers.get('link');
    if (link === null) break;
    const target = /^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? assert.fail(`Link is ${link}`);
    assert.doesNotMatch(target, /pwd=/, 'the Link never carries the password');
    next = `${target}&pwd=${TEST_PASSWORD}`;
    await onPage();
  }
  return pages;
}

describe('email=: the users with exactly that email', () => {
  test('compared case-insensitively, the whole email only', async () => {
    for (const email of ['anna.lee@example.com', 'ANNA.LEE@EXAMPLE.COM', 'Anna.Lee@Example.com']) {
      const res = await list(`&email=${encodeURIComponent(email)}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, await usersFromDatabase(service.db, "WHERE email = 'Anna.Lee@Example.com'"));
    }
    assert.deepEqual((await list('&email=anna.lee@example')).json, [], 'a part of an email finds nothing');
  });
  test('an email nobody has -> 200 []', async () => {
    const res = await list('&email=nobody@example.com');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, []);
  });
});

describe('email= lookups are coalesced like reads by id, each answered on its own', () => {
  test('40 concurrent lookups of different emails, spellings and misses each get exactly their users', async () => {
    const emails = ['john@example.com', 'JANE@example.com', 'Anna.Lee@example.COM', 'nobody@example.com', 'bob@EXAMPLE.com'];
    const asked = Array.from({ length: 40 }, (_, i) => emails[i % emails.length]!);
    const answers = await Promise.all(asked.map((email) => list(`&email=${encodeURIComponent(email)}`)));
    for (const [i, res] of answers.entries()) {
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, await usersFromDatabase(service.db, 'WHERE email = ?', [asked[i]]), asked[i]);
    }
  });
  test('an email more than 1000 users share is streamed whole, in id order', async () => {
    const values = Array.from({ length: 1001 }, (_, i) => `('Shared ${i}', 'Shared@Crowd.example')`);
    await service.db.query(`INSERT INTO users (name, email) VALUES ${values.join(',')}`);
    const res = await list('&email=shared%40crowd.example');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), await idsWhere("WHERE email = 'shared@crowd.example'"));
    assert.equal(ids(res).length, 1001);
    await service.db.query("DELETE FROM users WHERE email = 'shared@crowd.example'");
  });
  test('an email shared by more users than a whole batch may hold leaves every lookup of its batch whole', async () => {
    const values = Array.from({ length: 5000 }, (_, i) => `('Packed ${i}', 'packed@crowd.example')`);
    await service.db.query(`INSERT INTO users (name, email) VALUES ${values.join(',')}`);
    const asked = ['packed@crowd.example', 'john@example.com', 'jane@example.com', 'nobody@example.com'];
    const answers = await Promise.all(asked.map((email) => list(`&email=${encodeURIComponent(email)}`)));
    for (const [i, res] of answers.entries()) {
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res), await idsWhere('WHERE email = ?', [asked[i]]), asked[i]);
    }
    assert.equal(ids(answers[0]!).length, 5000);
    await service.db.query("DELETE FROM users WHERE email = 'packed@crowd.example'");
  });
});

describe('q=: name or email contains the text, case-insensitively', () => {
  const rows: Array<[string, string]> = [
    ['anna', "WHERE name LIKE '%anna%' OR email LIKE '%anna%'"],
    ['LEE', "WHERE name LIKE '%lee%' OR email LIKE '%lee%'"],
    ['example.org', "WHERE email LIKE '%example.org%'"],
    ['%', "WHERE name LIKE '%!%%' ESCAPE '!' OR email LIKE '%!%%' ESCAPE '!'"],
    ['_', "WHERE name LIKE '%!_%' ESCAPE '!' OR email LIKE '%!_%' ESCAPE '!'"],
    ['" and \\', `WHERE name LIKE '%" and \\\\\\\\%'`],
  ];
  for (const [q, where] of rows) {
    test(`q=${q} -> the users the database finds ${where}`, async () => {
      const res = await list(`&q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200, res.text);
      const expected = await usersFromDatabase(service.db, where);
      assert.ok(expected.length > 0, 'the case finds someone');
      assert.deepEqual(res.json, expected);
    });
  }
  test('% and _ are literal text, not wildcards: q=% finds only names or emails holding a %', async () => {
    assert.deepEqual(
      (await list('&q=%25')).json,
      (await usersFromDatabase(service.db)).filter((user) => user.name.includes('%') || user.email.includes('%')),
    );
  });
});

describe('prefix=: name or email starts with the text', () => {
  test('prefix=ann finds names and emails that start so, not ones containing it later', async () => {
    const res = await list('&prefix=ann');
    assert.deepEqual(ids(res), await idsWhere("WHERE name LIKE 'ann%' OR email LIKE 'ann%'"));
    const hannah = (await idsWhere("WHERE email = 'hannah@example.com'"))[0]!;
    assert.ok(!ids(res).includes(hannah), 'Hannah holds "ann" but does not start with it');
  });
});

describe('sort=: by id, name, email or created_at, - for descending, ties by id', () => {
  const orders: Array<[string, string]> = [
    ['id', 'id'],
    ['-id', 'id DESC'],
    ['name', 'name, id'],
    ['-name', 'name DESC, id DESC'],
    ['email', 'email, id'],
    ['-email', 'email DESC, id DESC'],
    ['created_at', 'created_at, id'],
    ['-created_at', 'created_at DESC, id DESC'],
  ];
  for (const [sort, order] of orders) {
    test(`sort=${sort}: the whole list in the order ${order}`, async () => {
      const res = await list(`&sort=${sort}`);
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res), await idsWhere('', [], order));
    });
    for (const limit of [1, 3]) {
      test(`sort=${sort}&limit=${limit}: following next visits every user once, in that order`, async () => {
        const pages = await walk(`&sort=${sort}&limit=${limit}`);
        assert.ok(pages.every((page) => page.length <= limit));
        assert.deepEqual(pages.flat().map((user) => user.id), await idsWhere('', [], order));
      });
    }
  }
  test('names that differ only in case tie, and the id breaks the tie', async () => {
    const annas = (await list('&q=anna%20lee&sort=name')).json as ApiUser[];
    const sortedIds = annas.map((user) => user.id);
    assert.equal(annas.length, 3);
    assert.deepEqual(sortedIds, [...sortedIds].sort((a, b) => a - b));
  });
  test('filters, sort and limit combine: q=ann&sort=-email&limit=1 walks the matching users by email descending', async () => {
    const pages = await walk('&q=ann&sort=-email&limit=1');
    assert.deepEqual(pages.flat().map((user) => user.id), await idsWhere("WHERE name LIKE '%ann%' OR email LIKE '%ann%'", [], 'email DESC, id DESC'));
  });
  test('the Link carries limit, sort and every filter, never pwd', async () => {
    const res = await list('&q=ann&prefix=a&email=anna2%40example.org&sort=-name&limit=1&unknown=1');
    assert.equal(res.status, 200);
    const none = res.headers.get('link');
    assert.equal(none, null, 'one match: no next page');
    const two = await list('&q=anna%20lee&sort=-name&limit=1');
    assert.match(two.headers.get('link') ?? '', /^<\/api\/users\?limit=1&sort=-name&q=anna%20lee&cursor=[\w-]+\.[\w-]+>; rel="next"$/);
  });
});

describe('Prefer: count=exact', () => {
  test('adds X-Total-Count, the number matching the filter (not the page), and Preference-Applied', async () => {
    const res = await list('&q=anna&limit=1', { Prefer: 'count=exact' });
    assert.equal(res.status, 200);
    assert.equal((res.json as unknown[]).length, 1);
    assert.equal(res.headers.get('x-total-count'), String((await idsWhere("WHERE name LIKE '%anna%' OR email LIKE '%anna%'")).length));
    assert.equal(res.headers.get('preference-applied'), 'count=exact');
  });
  test('on the whole list, streamed or not, it counts every user', async () => {
    const res = await list('', { Prefer: 'count=exact' });
    assert.equal(res.headers.get('x-total-count'), String((await idsWhere('')).length));
    assert.deepEqual(res.json, await usersFromDatabase(service.db));
  });
  test('without it no count is given', async () => {
    for (const query of ['', '&limit=2', '&q=anna']) {
      const res = await list(query);
      assert.equal(res.headers.get('x-total-count'), null);
      assert.equal(res.headers.get('preference-applied'), null);
    }
  });
});

describe('bad finding parameters -> 400 naming the parameter, after the password check', () => {
  const rows: Array<[string, string]> = [
    ['&sort=age', 'sort must be one of id, name, email, created_at, or one of them after - for descending order'],
    ['&q=', 'q must be 1 to 100 characters'],
    [`&q=${'x'.repeat(101)}`, 'q must be 1 to 100 characters'],
    ['&q=a&q=b', 'q must be given at most once'],
    ['&sort=name&sort=id', 'sort must be given at most once'],
    [`&email=${'e'.repeat(101)}`, 'email must be 1 to 100 characters'],
    ['&limit=2&sort=name&cursor=not-a-cursor', 'cursor is not valid for this list: follow the Link header of the page before'],
    ['&limit=2&sort=name&cursor=eyJ4IjoxfQ.AAAAAAAAAAAAAAAAAAAAAA', 'cursor is not valid for this list: follow the Link header of the page before'],
    ['&limit=2&sort=name&after=3', 'after applies to sort=id only: follow the Link header, which carries a cursor'],
  ];
  for (const [query, message] of rows) {
    test(`${query.slice(0, 50)} -> 400 ${message}`, async () => {
      const res = await list(query);
      assert.equal(res.status, 400);
      assertErrorBody(res, message);
    });
  }
  test('a wrong password is refused first (401), whatever the other parameters', async () => {
    const res = await request(service.baseUrl, 'GET', '/api/users?pwd=wrong&sort=age&q=');
    assert.equal(res.status, 401);
  });
  test('a cursor made for one list is refused by another (400), not answered from the wrong place', async () => {
    const link = (await list('&q=anna%20lee&sort=name&limit=1')).headers.get('link')!;
    const cursor = /cursor=([^>&]+)/.exec(link)![1]!;
    const res = await list(`&q=anna%20lee&sort=email&limit=1&cursor=${cursor}`);
    assert.equal(res.status, 400);
  });
  test('unknown parameters stay ignored', async () => {
    const res = await list('&colour=red&sort=-id');
    assert.deepEqual(ids(res), await idsWhere('', [], 'id DESC'));
  });
});

describe('keyset paging while other clients write', () => {
  test('every user nobody touches is seen exactly once, in order; creates, renames and deletes between pages do not shift it', async () => {
    const volatile: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: `Walker ${i}`, email: `walker${i}@walk.example` } });
      assert.equal(res.status, 201);
      volatile.push(Number(res.headers.get('location')!.split('/').pop()));
    }
    for (const [sort, order] of [['name', 'name, id'], ['-created_at', 'created_at DESC, id DESC'], ['-id', 'id DESC']] as const) {
      const stable = await idsWhere(`WHERE id NOT IN (${volatile.join(',')})`, [], order);
      let step = 0;
      const writes = async () => {
        step++;
        const target = volatile[step % volatile.length]!;
        await request(service.baseUrl, 'POST', '/api/users', { json: { name: `Newcomer ${sort} ${step}`, email: `new${step}@walk.example` } });
        await request(service.baseUrl, 'PUT', `/api/users/${target}`, { json: { name: step % 2 ? 'Aaron Renamed' : 'Zed Renamed', email: `moved${step}@walk.example` } });
        if (step % 5 === 0) await request(service.baseUrl, 'DELETE', `/api/users/${volatile[(step + 1) % volatile.length]}`);
      };
      const seen = (await walk(`&sort=${sort}&limit=4`, writes)).flat().map((user) => user.id);
      const seenStable = seen.filter((id) => stable.includes(id));
      assert.deepEqual(seenStable, stable, `sort=${sort}: every untouched user once, in order`);
    }
  });
});

describe('without limit a filtered list is streamed whole', () => {
  test('a match larger than one chunk arrives chunked and complete', async () => {
    const values: string[] = [];
    for (let i = 0; i < 3000; i++) values.push(`('Streamed ${i} ${'x'.repeat(60)}', 'streamed${i}@stream.example')`);
    await service.db.query(`INSERT INTO users (name, email) VALUES ${values.join(',')}`);
    const res = await list('&q=stream.example&sort=-id');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), null, 'sent chunked, not built whole');
    assert.deepEqual(ids(res), await idsWhere("WHERE email LIKE '%stream.example%'", [], 'id DESC'));
  });
});
