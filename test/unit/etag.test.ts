import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { etagOf, ifMatch, ifNoneMatch, tagMatches } from '../../src/users/rules/etag.js';

const A = '"0123456789abcdef0123456789abcdef"';
const B = '"fedcba9876543210fedcba9876543210"';

describe('etagOf: a strong tag of the stored fields', () => {
  const row = { id: 1, name: 'Ada', email: 'ada@example.com', created_at: '2026-11-22 01:25:36' };
  test('quoted lower-case MD5 hex, the same for the same fields', () => {
    assert.match(etagOf(row), /^"[0-9a-f]{32}"$/);
    assert.equal(etagOf({ ...row }), etagOf(row));
  });
  test('any field changing changes it, also when the text shifts between fields', () => {
    const variants = [
      { ...row, id: 2 },
      { ...row, name: 'ada' },
      { ...row, email: 'Ada@example.com' },
      { ...row, created_at: '2026-11-22 01:25:37' },
      { ...row, created_at: null },
      { ...row, name: 'Ada,ada@example.com', email: '' },
    ];
    assert.equal(new Set([row, ...variants].map(etagOf)).size, variants.length + 1);
  });
});

describe('If-Match / If-None-Match parsing', () => {
  const rows: Array<[header: string | undefined, matchTags: string[] | '*' | undefined, noneMatchTags: string[] | '*' | undefined]> = [
    [undefined, undefined, undefined],
    ['*', '*', '*'],
    [' * ', '*', '*'],
    [A, [A], [A]],
    [`${A}, ${B}`, [A, B], [A, B]],
    [`${A},${B}`, [A, B], [A, B]],
    [`W/${A}`, [], [A]],
    [`W/${A}, ${B}`, [B], [A, B]],
    ['unquoted', [], []],
    ['', [], []],
    [`${A}, junk`, [A], [A]],
  ];
  const shown = (condition: ReturnType<typeof ifMatch>) => (condition === undefined ? undefined : 'any' in condition ? '*' : [...condition.tags]);
  for (const [header, matchTags, noneMatchTags] of rows) {
    test(`${JSON.stringify(header)} -> If-Match ${JSON.stringify(matchTags)}, If-None-Match ${JSON.stringify(noneMatchTags)}`, () => {
      assert.deepEqual(shown(ifMatch(header)), matchTags);
      assert.deepEqual(shown(ifNoneMatch(header)), noneMatchTags);
    });
  }
  test('tagMatches: * matches any tag, a list only its members', () => {
    assert.equal(tagMatches({ any: true }, A), true);
    assert.equal(tagMatches({ tags: [B] }, A), false);
    assert.equal(tagMatches({ tags: [B, A] }, A), true);
  });
});
