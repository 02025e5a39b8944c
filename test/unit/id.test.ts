import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isIdSegment, MAX_USER_ID, storableId } from '../../src/users/rules/id.js';

describe('isIdSegment: a canonical unsigned decimal integer', () => {
  const ids = ['0', '1', '9', '10', '2147483647', '2147483648', '99999999999', '9'.repeat(40)];
  for (const segment of ids) test(`${JSON.stringify(segment)} is an id segment`, () => assert.equal(isIdSegment(segment), true));

  const notIds = ['', 'abc', '1.5', '-1', '+1', '1e3', '01', '00', '0x10', '%31', ' 1', '1 ', '1a', '١', '１', '1,2'];
  for (const segment of notIds) test(`${JSON.stringify(segment)} is not an id segment`, () => assert.equal(isIdSegment(segment), false));
});

describe('storableId: the id a segment names, or undefined when no row can have it', () => {
  const rows: Array<[string, number | undefined]> = [
    ['1', 1],
    ['42', 42],
    [String(MAX_USER_ID), MAX_USER_ID],
    ['0', undefined],
    [String(MAX_USER_ID + 1), undefined],
    ['99999999999', undefined],
    ['9'.repeat(40), undefined],
  ];
  for (const [segment, expected] of rows) {
    test(`${segment.length > 12 ? `${segment.length} digits` : segment} -> ${expected}`, () => assert.equal(storableId(segment), expected));
  }

  test('MAX_USER_ID is the largest signed INT', () => assert.equal(MAX_USER_ID, 2 ** 31 - 1));
});
