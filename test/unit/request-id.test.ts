import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshRequestId, requestIdFor } from '../../src/http/request-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('fresh ids are version 4 UUIDs, all distinct across several refills of the random pool', () => {
  const ids = Array.from({ length: 3 * 4096 + 17 }, () => freshRequestId());
  for (const id of ids) assert.match(id, UUID_V4);
  assert.equal(new Set(ids).size, ids.length);
});

test('fresh ids use every hex digit in every random position (no stuck bits)', () => {
  const seen = Array.from({ length: 36 }, () => new Set<string>());
  for (let n = 0; n < 2000; n++) [...freshRequestId()].forEach((char, at) => seen[at]!.add(char));
  const fixed = new Map([[8, '-'], [13, '-'], [14, '4'], [18, '-'], [23, '-']]);
  seen.forEach((chars, at) => {
    if (fixed.has(at)) assert.deepEqual([...chars], [fixed.get(at)], `position ${at}`);
    else if (at === 19) assert.deepEqual([...chars].sort(), ['8', '9', 'a', 'b'], 'the variant nibble');
    else assert.equal(chars.size, 16, `position ${at} takes all 16 digits`);
  });
});

test("a client's acceptable id is kept; an unacceptable or missing one is replaced", () => {
  assert.equal(requestIdFor('trace-42'), 'trace-42');
  assert.match(requestIdFor('has space'), UUID_V4);
  assert.match(requestIdFor(undefined), UUID_V4);
  assert.match(requestIdFor(['a', 'b']), UUID_V4);
});
