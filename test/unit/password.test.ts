import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { passwordChecker, singlePassword } from '../../src/users/http/password.js';

describe('passwordChecker', () => {
  const matches = passwordChecker('s3cret-Ü');
  const rows: Array<[string | undefined, boolean]> = [
    ['s3cret-Ü', true],
    ['s3cret-U', false],
    ['S3CRET-Ü', false],
    ['s3cret', false],
    ['s3cret-Üx', false],
    ['', false],
    [undefined, false],
  ];
  for (const [candidate, expected] of rows) {
    test(`${JSON.stringify(candidate)} -> ${expected}`, () => assert.equal(matches(candidate), expected));
  }
});

describe('singlePassword: the pwd query value', () => {
  const rows: Array<[string, string | undefined]> = [
    ['pwd=abc', 'abc'],
    ['x=1&pwd=abc&y=2', 'abc'],
    ['pwd=a%20b', 'a b'],
    ['pwd=a+b', 'a b'],
    ['p%77d=abc', 'abc'],
    ['pwd=', ''],
    ['', undefined],
    ['x=1', undefined],
    ['PWD=abc', undefined],
    ['pwd=abc&pwd=abc', undefined],
  ];
  for (const [query, expected] of rows) {
    test(`${JSON.stringify(query)} -> ${JSON.stringify(expected)}`, () => assert.equal(singlePassword(query), expected));
  }
});
