import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { timestampJson, userJson } from '../../src/users/rules/user.js';

describe('user rows as JSON', () => {
  test('a MySQL UTC datetime string becomes an ISO 8601 UTC JSON string with milliseconds; NULL becomes null', () => {
    assert.equal(timestampJson('2026-11-22 01:25:36'), '"2026-11-22T01:25:36.000Z"');
    assert.equal(timestampJson(null), 'null');
  });

  test('userJson writes id, name, email, created_at in that order, escaping the strings', () => {
    const text = userJson({ id: 7, name: 'A "quoted" \\ name 😀', email: 'a@b.c', created_at: '2026-01-02 03:04:05' });
    assert.deepEqual(Object.keys(JSON.parse(text) as object), ['id', 'name', 'email', 'created_at']);
    assert.deepEqual(JSON.parse(text), { id: 7, name: 'A "quoted" \\ name 😀', email: 'a@b.c', created_at: '2026-01-02T03:04:05.000Z' });
  });

  test('line and paragraph separators survive', () => {
    const name = 'a\u2028b\u2029c';
    assert.equal((JSON.parse(userJson({ id: 1, name, email: 'e', created_at: '2026-01-02 03:04:05' })) as { name: string }).name, name);
  });
});
