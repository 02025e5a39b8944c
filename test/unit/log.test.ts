import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger, describeError, redactTarget } from '../../src/log.js';

describe('redactTarget: no pwd value survives, whatever the encoding of its key', () => {
  const secret = 'hunter2';
  const rows = [
    ['pwd=hunter2', '/api/users'],
    ['p%77d=hunter2', '/api/users'],
    ['%70%77%64=hunter2', '/api/users'],
    ['P%77D=hunter2&x=1', '/api/users'],
    ['a=1&pwd=hunter2&b=2', '/api/users'],
    ['pwd=x&pwd=hunter2', '/api/users'],
    ['pwd=hunter2&%zz', '/api/users'],
    ['pwd=hunter2', '/api/users/1'],
  ];
  for (const [query, path] of rows) {
    test(`${path}?${query}`, () => {
      const logged = redactTarget(path!, query!);
      assert.ok(logged.startsWith(`${path}?`), 'the path is kept');
      assert.ok(!logged.includes(secret), logged);
      assert.ok(logged.includes('[REDACTED]'));
    });
  }

  test('without a query the path is returned as it is', () => {
    assert.equal(redactTarget('/api/users/1', ''), '/api/users/1');
  });

  test('keys stay readable', () => {
    const logged = redactTarget('/api/users', 'pwd=hunter2&trace');
    assert.match(logged, /pwd=\[REDACTED\]/);
    assert.match(logged, /trace/);
  });
});

describe('createLogger: one JSON line per entry', () => {
  test('info, warn and error write single JSON lines with time, level, msg and fields', () => {
    const lines: string[] = [];
    const logger = createLogger((line) => lines.push(line));
    logger.info('hello', { a: 1 });
    logger.warn('careful');
    logger.error('broken', new Error('boom'), { path: '/x' });
    assert.equal(lines.length, 3);
    const entries = lines.map((line) => {
      assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'));
      return JSON.parse(line) as Record<string, unknown>;
    });
    assert.deepEqual(entries.map((entry) => [entry.level, entry.msg]), [['info', 'hello'], ['warn', 'careful'], ['error', 'broken']]);
    assert.equal(entries[0]!.a, 1);
    assert.equal(entries[2]!.path, '/x');
    assert.equal((entries[2]!.err as { message: string }).message, 'boom');
    for (const entry of entries) assert.ok(!Number.isNaN(Date.parse(entry.time as string)));
  });
});

describe('describeError: enough to diagnose, never the SQL', () => {
  test('a driver error keeps name, message, code, errno, sqlState and stack but not sql', () => {
    const error = Object.assign(new Error("Table 'x.users' doesn't exist"), {
      code: 'ER_NO_SUCH_TABLE',
      errno: 1146,
      sqlState: '42S02',
      sql: "SELECT * FROM users WHERE name = 'secret value'",
    });
    const described = describeError(error);
    assert.equal(described.code, 'ER_NO_SUCH_TABLE');
    assert.equal(described.errno, 1146);
    assert.equal(described.sqlState, '42S02');
    assert.equal(typeof described.stack, 'string');
    assert.ok(!JSON.stringify(described).includes('secret value'));
  });

  test('a thrown non-error becomes its string', () => {
    assert.deepEqual(describeError('plain'), { message: 'plain' });
  });
});
