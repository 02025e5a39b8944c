import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PoolConnection } from 'mysql2';
import type { ConnectionCallback } from '../../src/db/connection-source.js';
import { CountingSource } from '../../src/db/counting-source.js';

/** A pool that answers each request only when the test says so, with connections that record how they came back. */
function manualPool() {
  const waiting: ConnectionCallback[] = [];
  const returned: string[] = [];
  const connection = (name: string) =>
    ({ release: () => returned.push(`${name} released`), destroy: () => returned.push(`${name} destroyed`) }) as unknown as PoolConnection;
  const pool = { getConnection: (callback: ConnectionCallback) => waiting.push(callback), end: (callback: () => void) => callback() };
  const answer = (name: string) => {
    const handed = connection(name);
    waiting.shift()!(null, handed);
    return handed;
  };
  const fail = () => waiting.shift()!(Object.assign(new Error('Queue limit reached.')), undefined as unknown as PoolConnection);
  return { source: new CountingSource(pool), answer, fail, returned };
}

describe('CountingSource: connections in use and requests waiting, for the metrics gauges', () => {
  test('a request counts as waiting until answered, then its connection as in use until given back', () => {
    const { source, answer } = manualPool();
    source.getConnection(() => {});
    source.getConnection(() => {});
    assert.deepEqual(source.usage(), { inUse: 0, waiting: 2 });
    const first = answer('a');
    assert.deepEqual(source.usage(), { inUse: 1, waiting: 1 });
    source.giveBack(first, false);
    assert.deepEqual(source.usage(), { inUse: 0, waiting: 1 });
  });

  test('a connection destroyed in use (lost, or past its deadline) no longer counts', () => {
    const { source, answer, returned } = manualPool();
    source.getConnection(() => {});
    const lost = answer('a');
    source.giveBack(lost, true);
    assert.deepEqual(source.usage(), { inUse: 0, waiting: 0 });
    assert.deepEqual(returned, ['a destroyed']);
  });

  test('a connection given back twice (destroyed, then released by a late handler) is subtracted once', () => {
    const { source, answer } = manualPool();
    source.getConnection(() => {});
    source.getConnection(() => {});
    const a = answer('a');
    answer('b');
    source.giveBack(a, true);
    source.giveBack(a, false);
    assert.deepEqual(source.usage(), { inUse: 1, waiting: 0 });
  });

  test('a refused request stops waiting and holds nothing', () => {
    const { source, fail } = manualPool();
    let refused: Error | null = null;
    source.getConnection((error) => (refused = error));
    fail();
    assert.match(String(refused), /Queue limit reached/);
    assert.deepEqual(source.usage(), { inUse: 0, waiting: 0 });
  });
});
