import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger, describeError, redactTarget } from '../../src/log/logger.js';

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
    ['PWD=hunter2', '/api/users'],
    ['pwd[]=hunter2', '/api/users'],
    ['pwd%5B%5D=hunter2', '/api/users'],
    ['+pwd=hunter2', '/api/users'],
    ['%20pwd%00=hunter2', '/api/users'],
    ['limit=5&pwd=hunter2&sort=name', '/api/users'],
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

  test('every other parameter stays readable: limit, after, sort, cursor, email, name', () => {
    const query = 'limit=20&after=41&sort=-name&cursor=eyJhIjoxfQ.sig&email=ada%40example.com&name=Ada+L';
    assert.equal(redactTarget('/api/users', `${query}&pwd=hunter2`), `/api/users?${query}&pwd=[REDACTED]`);
  });

  test('a key that only resembles pwd is kept (pwd2, pw, password_hint)', () => {
    assert.equal(redactTarget('/api/users', 'pwd2=a&pw=b&password_hint=c'), '/api/users?pwd2=a&pw=b&password_hint=c');
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

describe('createLogger pretty: short readable lines for a terminal', () => {
  const pretty = (): { lines: string[]; logger: ReturnType<typeof createLogger> } => {
    const lines: string[] = [];
    return { lines, logger: createLogger((line) => lines.push(line), 'pretty') };
  };

  test('time, level, message and key=value fields on one line', () => {
    const { lines, logger } = pretty();
    logger.info('listening', { docs: 'http://localhost:5000/apidocs', db: 'embedded: ./data/mysql', port: 5000 });
    assert.match(lines[0]!, /^\d\d:\d\d:\d\d\.\d{3} INFO  listening docs=http:\/\/localhost:5000\/apidocs db="embedded: \.\/data\/mysql" port=5000\n$/);
  });

  test('an expected condition (an error with a code) shows its message and code, no stack trace', () => {
    const { lines, logger } = pretty();
    logger.error('query failed', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' }));
    assert.equal(lines[0]!.split('\n').length, 2, 'one line');
    assert.match(lines[0]!, /ERROR query failed error="connect ECONNREFUSED 127\.0\.0\.1:3306" code=ECONNREFUSED/);
  });

  test('a fault of the program (an error without a code) keeps its stack, indented below the line', () => {
    const { lines, logger } = pretty();
    logger.error('request failed', new TypeError('x is undefined'));
    assert.match(lines[0]!, /error="x is undefined"\n {4}at /);
  });

  test('the access log line carries the redacted target, never the password', () => {
    const { lines, logger } = pretty();
    logger.request('GET', redactTarget('/api/users', 'pwd=hunter2'), 200, 3, 'req-1');
    assert.match(lines[0]!, / INFO  GET \/api\/users\?pwd=\[REDACTED\] 200 durationMs=3 requestId=req-1\n$/);
    assert.ok(!lines[0]!.includes('hunter2'));
  });
});
