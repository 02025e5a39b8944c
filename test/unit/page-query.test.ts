import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpError } from '../../src/errors/http-error.js';
import { nextPageLink, pageRequest } from '../../src/users/rules/page-query.js';

describe('pageRequest: the page a list query asks for', () => {
  const accepted: Array<[query: string, page: ReturnType<typeof pageRequest>]> = [
    ['', undefined],
    ['pwd=x', undefined],
    ['pwd=x&other=1', undefined],
    ['pwd=x&limit=1', { limit: 1, after: 0 }],
    ['limit=1000&pwd=x', { limit: 1000, after: 0 }],
    ['pwd=x&limit=10&after=0', { limit: 10, after: 0 }],
    ['pwd=x&limit=10&after=2147483647', { limit: 10, after: 2147483647 }],
    ['pwd=x&limit=10&after=2147483648', { limit: 10, after: 2147483647 }],
    ['pwd=x&limit=10&after=99999999999999999999999999', { limit: 10, after: 2147483647 }],
  ];
  for (const [query, page] of accepted) {
    test(`"${query}" -> ${JSON.stringify(page)}`, () => assert.deepEqual(pageRequest(query), page));
  }
  const refused = ['limit=0', 'limit=1001', 'limit=01', 'limit=', 'limit', 'limit=1&limit=1', 'limit=2&after=-0', 'limit=2&after=', 'after=1'];
  for (const query of refused) {
    test(`"${query}" -> HttpError 400 naming the parameter`, () => {
      assert.throws(() => pageRequest(query), (error: unknown) => error instanceof HttpError && error.status === 400 && /limit|after/.test(error.message));
    });
  }
  test('nextPageLink carries limit and the last id, never pwd', () => {
    assert.equal(nextPageLink(100, 250), '</api/users?limit=100&after=250>; rel="next"');
  });
});
