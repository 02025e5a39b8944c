import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpError } from '../../src/errors/http-error.js';
import { ListCursors } from '../../src/users/rules/list-cursor.js';
import { nextPageLink } from '../../src/users/rules/list-link.js';
import type { ListRequest } from '../../src/users/rules/list-query.js';
import { listRequest } from '../../src/users/rules/list-request.js';

const cursors = new ListCursors('secret');
const parse = (query: string, prefer?: string) => listRequest(query, prefer, cursors);
const byId = { field: 'id', descending: false } as const;

describe('listRequest: the contract plain list is told apart without parsing', () => {
  for (const query of ['', 'pwd=x', 'pwd=x&other=1', 'pwd=x&sort=id', 'pwd=x&qq=1&emails=2']) {
    test(`"${query}" -> undefined (the plain list)`, () => assert.equal(parse(query), undefined));
  }
  test('Prefer: count=exact alone makes a request of the plain list (to count it)', () => {
    assert.deepEqual(parse('pwd=x', 'count=exact'), { filter: {}, sort: byId, count: true });
  });
  for (const prefer of ['return=minimal, count=exact', 'count="exact"', 'COUNT=EXACT; x=1']) {
    test(`Prefer "${prefer}" asks for the count`, () => assert.equal(parse('', prefer)?.count, true));
  }
  for (const prefer of ['count=planned', 'count=exactly', 'recount=exact']) {
    test(`Prefer "${prefer}" does not`, () => assert.equal(parse('', prefer), undefined));
  }
});

describe('listRequest: paging by id keeps the contract form', () => {
  const accepted: Array<[string, ListRequest['page']]> = [
    ['pwd=x&limit=1', { limit: 1 }],
    ['limit=1000&pwd=x', { limit: 1000 }],
    ['pwd=x&limit=10&after=0', { limit: 10, after: { value: 0, id: 0 } }],
    ['pwd=x&limit=10&after=2147483647', { limit: 10, after: { value: 2147483647, id: 2147483647 } }],
    ['pwd=x&limit=10&after=99999999999999999999999999', { limit: 10, after: { value: 2147483647, id: 2147483647 } }],
  ];
  for (const [query, page] of accepted) {
    test(`"${query}" -> page ${JSON.stringify(page)}`, () => assert.deepEqual(parse(query)?.page, page));
  }
});

describe('listRequest: bad parameters -> 400 naming the parameter', () => {
  const refused: Array<[string, RegExp]> = [
    ['limit=0', /^limit/],
    ['limit=1001', /^limit/],
    ['limit=01', /^limit/],
    ['limit=', /^limit/],
    ['limit', /^limit/],
    ['limit=1&limit=1', /^limit must be an integer from 1 to 1000/],
    ['limit=1&after=1&after=2', /^after must be a non-negative integer/],
    ['limit=2&after=-0', /^after/],
    ['limit=2&after=', /^after/],
    ['after=1', /^after requires limit/],
    ['cursor=abc', /^cursor requires limit/],
    ['limit=2&after=1&cursor=x', /^after and cursor/],
    ['limit=2&sort=name&after=3', /^after applies to sort=id/],
    ['limit=2&sort=-id&after=3', /^after applies to sort=id/],
    ['sort=age', /^sort must be one of id, name, email, created_at/],
    ['sort=', /^sort must be one of/],
    ['sort=--id', /^sort must be one of/],
    ['sort=Name', /^sort must be one of/],
    ['sort=id&sort=name', /^sort must be given at most once/],
    ['q=', /^q must be 1 to 100 characters/],
    [`q=${'x'.repeat(101)}`, /^q must be 1 to 100 characters/],
    ['q=a&q=b', /^q must be given at most once/],
    ['email=', /^email must be 1 to 100 characters/],
    [`email=${'e'.repeat(101)}`, /^email must be 1 to 100 characters/],
    ['email=a&email=b', /^email must be given at most once/],
    [`prefix=${'p'.repeat(101)}`, /^prefix must be 1 to 100 characters/],
    ['limit=2&sort=name&cursor=nonsense', /^cursor is not valid/],
    ['limit=2&sort=name&cursor=W251bGwsMV0.AAAAAAAAAAAAAAAAAAAAAA', /^cursor is not valid/],
  ];
  for (const [query, message] of refused) {
    test(`"${query.slice(0, 40)}" -> 400 ${message}`, () => {
      assert.throws(() => parse(query), (error: unknown) => error instanceof HttpError && error.status === 400 && message.test(JSON.parse(error.body).error));
    });
  }
  test('100 characters of q, counted in code points, are accepted', () => {
    assert.equal(parse(`q=${encodeURIComponent('🎉'.repeat(100))}`)?.filter.q, '🎉'.repeat(100));
  });
});

describe('cursors: made by the service for one list, refused for any other', () => {
  const sorted = parse('limit=2&sort=-name&q=an')!;
  const link = nextPageLink(sorted as ListRequest & { page: { limit: number } }, { value: 'Anna', id: 7 }, cursors);
  const cursor = decodeURIComponent(/cursor=([^>&]+)/.exec(link)![1]!);

  test('the Link carries limit, sort and the filters, then the cursor, never pwd', () => {
    assert.match(link, /^<\/api\/users\?limit=2&sort=-name&q=an&cursor=[\w-]+\.[\w-]+>; rel="next"$/);
  });
  test('the cursor it made reads back as the position it names', () => {
    assert.deepEqual(parse(`limit=2&sort=-name&q=an&cursor=${cursor}`)?.page?.after, { value: 'Anna', id: 7 });
  });
  const others = ['limit=2&sort=name&q=an', 'limit=2&sort=-name&q=ann', 'limit=2&sort=-name', 'limit=2&sort=-email&q=an'];
  for (const query of others) {
    test(`used for another list ("${query}") -> 400`, () => {
      assert.throws(() => parse(`${query}&cursor=${cursor}`), (error: unknown) => error instanceof HttpError && error.status === 400);
    });
  }
  test('a cursor of another secret (another service) -> 400', () => {
    const foreign = nextPageLink(sorted as ListRequest & { page: { limit: number } }, { value: 'Anna', id: 7 }, new ListCursors('other'));
    const token = decodeURIComponent(/cursor=([^>&]+)/.exec(foreign)![1]!);
    assert.throws(() => parse(`limit=2&sort=-name&q=an&cursor=${token}`), (error: unknown) => error instanceof HttpError && error.status === 400);
  });
  test('a payload changed under its signature -> 400', () => {
    const [, mac] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify(['Zed', 1])).toString('base64url')}.${mac}`;
    assert.throws(() => parse(`limit=2&sort=-name&q=an&cursor=${forged}`), (error: unknown) => error instanceof HttpError && error.status === 400);
  });
  test('paging by id links with after=<id>, as the contract paging does', () => {
    const plain = parse('pwd=x&limit=5')! as ListRequest & { page: { limit: number } };
    assert.equal(nextPageLink(plain, { value: 250, id: 250 }, cursors), '</api/users?limit=5&after=250>; rel="next"');
  });
});
