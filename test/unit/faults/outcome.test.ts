import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outcomeOf } from '../../faults/workload/outcome.js';

const rows: Array<[number | undefined, unknown, string]> = [
  [200, {}, 'ok'],
  [201, {}, 'ok'],
  [404, { error: 'User not found' }, 'failed'],
  [412, {}, 'failed'],
  [503, { error: 'Service busy, retry shortly' }, 'failed'],
  [503, { error: 'Service starting, retry shortly' }, 'failed'],
  [503, { error: 'Database unavailable' }, 'unknown'],
  [500, { error: 'Database error' }, 'unknown'],
  [undefined, undefined, 'unknown'],
];

for (const [status, body, expected] of rows) {
  test(`${status ?? 'no answer'} ${JSON.stringify(body) ?? ''} -> ${expected}`, () => assert.equal(outcomeOf(status, body), expected));
}
