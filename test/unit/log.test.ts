import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger, describeError, loggableUserAgent, MAX_USER_AGENT_LENGTH, redactTarget } from '../../src/log/logger.js';

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

  test('the access log line carries the redacted target, never the password, and who asked', () => {
    const { lines, logger } = pretty();
    logger.request('GET', redactTarget('/api/users', 'pwd=hunter2&limit=5'), 200, 3, 'req-1', '203.0.113.9', 'curl/8.5.0');
    assert.match(lines[0]!, / INFO  GET \/api\/users\?pwd=\[REDACTED\]&limit=5 200 durationMs=3 requestId=req-1 client=203\.0\.113\.9 userAgent=curl\/8\.5\.0\n$/);
    assert.ok(!lines[0]!.includes('hunter2'));
  });

  test('a user agent with spaces is quoted, one with control characters escaped: still one line', () => {
    const { lines, logger } = pretty();
    logger.request('GET', '/healthz', 200, 1, 'req-2', '::1', 'Mozilla/5.0 (X11)\u001b[31m\r\nfake line');
    assert.equal(lines[0]!.split('\n').length, 2, 'one line');
    assert.match(lines[0]!, / client=::1 userAgent="Mozilla\/5\.0 \(X11\)\\\\u001b\[31m\\\\u000d\\\\u000afake line"\n$/);
  });
});

describe('the access line in JSON: client address, user agent, principal', () => {
  const jsonLines = (): { lines: string[]; logger: ReturnType<typeof createLogger> } => {
    const lines: string[] = [];
    return { lines, logger: createLogger((line) => lines.push(line)) };
  };

  test('every field, in one JSON line', () => {
    const { lines, logger } = jsonLines();
    logger.request('GET', '/api/users?pwd=[REDACTED]', 200, 2.5, 'req-1', '198.51.100.7', 'curl/8.5.0', 'key:ci');
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    const { time, ...rest } = entry;
    assert.ok(!Number.isNaN(Date.parse(time as string)));
    assert.deepEqual(rest, {
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/api/users?pwd=[REDACTED]',
      status: 200,
      durationMs: 2.5,
      requestId: 'req-1',
      client: '198.51.100.7',
      userAgent: 'curl/8.5.0',
      principal: 'key:ci',
    });
  });

  test('no User-Agent header: no userAgent field; the client is always there', () => {
    const { lines, logger } = jsonLines();
    logger.request('GET', '/healthz', 'aborted', 1, 'req-2', '127.0.0.1', undefined);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal('userAgent' in entry, false);
    assert.equal(entry.client, '127.0.0.1');
    assert.equal(entry.status, 'aborted');
  });

  test('a user agent with control characters stays one parseable line, the characters escaped', () => {
    const { lines, logger } = jsonLines();
    logger.request('GET', '/healthz', 200, 1, 'req-3', '127.0.0.1', 'evil\r\n{"level":"error"}\u202e');
    assert.equal(lines[0]!.split('\n').length, 2, 'one line');
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(entry.userAgent, 'evil\\u000d\\u000a{"level":"error"}\\u202e');
  });
});

describe('loggableUserAgent', () => {
  const rows: Array<[string, string | undefined, string | undefined]> = [
    ['absent stays absent', undefined, undefined],
    ['an ordinary one is kept as it is', 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0', 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0'],
    ['a tab and DEL are escaped', 'a\tb\u007f', 'a\\u0009b\\u007f'],
    ['a C1 control (latin1 0x85) is escaped', 'a\u0085b', 'a\\u0085b'],
    ['a bidirectional override is escaped', 'abc\u202edef', 'abc\\u202edef'],
    ['non-ASCII letters are kept', 'Grüße/1.0', 'Grüße/1.0'],
  ];
  for (const [rule, value, expected] of rows) {
    test(`${rule}`, () => assert.equal(loggableUserAgent(value), expected));
  }

  test(`a long one is cut to ${MAX_USER_AGENT_LENGTH} characters and marked`, () => {
    assert.equal(loggableUserAgent('x'.repeat(10_000)), `${'x'.repeat(MAX_USER_AGENT_LENGTH)}…`);
  });
});
