import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, test } from 'node:test';
import { resolve } from 'node:path';
import { ConfigError, entryDefaults, loadConfig } from '../../src/config/environment.js';

describe('loadConfig: defaults', () => {
  test('an empty environment gives the defaults of the spec', () => {
    const config = loadConfig({});
    assert.equal(config.port, 5000);
    assert.equal(config.host, '0.0.0.0');
    assert.deepEqual(config.db, { servers: [{ host: 'db', port: 3306 }], user: 'root', password: '', database: 'restapi' });
    assert.equal(config.validateEmail, false, 'VALIDATE_EMAIL is off unless asked for');
    assert.equal(config.uniqueEmail, false, 'UNIQUE_EMAIL is off unless asked for');
  });

  test('VALIDATE_EMAIL=on and UNIQUE_EMAIL=on turn the integrity checks on', () => {
    const config = loadConfig({ VALIDATE_EMAIL: 'on', UNIQUE_EMAIL: 'on' });
    assert.equal(config.validateEmail, true);
    assert.equal(config.uniqueEmail, true);
  });

  test('empty strings count as unset', () => {
    const config = loadConfig({ PORT: '', HOST: '', DB_HOST: '', DB_PORT: '', DB_USER: '', DB_NAME: '' });
    assert.equal(config.port, 5000);
    assert.equal(config.host, '0.0.0.0');
    assert.deepEqual(config.db, { servers: [{ host: 'db', port: 3306 }], user: 'root', password: '', database: 'restapi' });
  });

  test('every variable is read', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DB_HOST: 'mysql.internal',
      DB_PORT: '3307',
      DB_USER: 'app',
      DB_PASSWORD: 's3cret',
      DB_NAME: 'users_db',
      ACCESS_PASSWORD: 'letmein',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.deepEqual(config.db, { servers: [{ host: 'mysql.internal', port: 3307 }], user: 'app', password: 's3cret', database: 'users_db' });
    assert.equal(config.accessPassword, 'letmein');
    assert.equal(config.accessPasswordGenerated, false);
  });

  test('PORT=0 is accepted (the system picks a port)', () => {
    assert.equal(loadConfig({ PORT: '0' }).port, 0);
  });
});

describe('loadConfig: ACCESS_PASSWORD', () => {
  for (const [label, env] of [['unset', {}], ['empty', { ACCESS_PASSWORD: '' }]] as const) {
    test(`${label} -> a random password is generated, different on every start`, () => {
      const first = loadConfig(env);
      const second = loadConfig(env);
      assert.equal(first.accessPasswordGenerated, true);
      assert.ok(first.accessPassword.length >= 16, 'long enough not to be guessed');
      assert.notEqual(first.accessPassword, second.accessPassword);
    });
  }
});

describe('loadConfig: invalid values -> ConfigError naming the variable', () => {
  const rows: Array<[string, string]> = [
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '1.5'],
    ['PORT', '65536'],
    ['PORT', '5000abc'],
    ['PORT', ' 5000'],
    ['DB_PORT', 'x'],
    ['DB_PORT', '99999'],
    ['DB_NAME', 'bad-name'],
    ['DB_NAME', 'users; DROP DATABASE x'],
    ['DB_NAME', 'a`b'],
    ['DB_NAME', 'n'.repeat(65)],
    ['DB_HOST', 'a,,b'],
    ['DB_HOST', 'a:99999'],
    ['DB_HOST', 'a:x'],
    ['DB_HOST', 'a b'],
    ['WORKERS', '0'],
    ['WORKERS', 'many'],
    ['WORKERS', '1.5'],
    ['DB_POOL_SIZE', '0'],
    ['DB_POOL_SIZE', '-3'],
    ['DB_POOL_SIZE', 'auto'],
    ['API_COMPAT', 'flask'],
    ['API_COMPAT', 'Contract'],
    ['AUTH_MAX_FAILURES', '0'],
    ['AUTH_MAX_FAILURES', '-3'],
    ['AUTH_MAX_FAILURES', 'ten'],
    ['AUTH_WINDOW_S', '1.5'],
    ['AUTH_WINDOW_S', '0'],
    ['TRUST_PROXY', 'yes'],
    ['METRICS', 'true'],
    ['VALIDATE_EMAIL', 'yes'],
    ['UNIQUE_EMAIL', '1'],
    ['METRICS_PORT', '70000'],
    ['METRICS_HOST', 'not an address'],
    ['METRICS_HOST', '127.0.0.256'],
    ['METRICS_HOST', '127.0.0.1:9464'],
    ['METRICS_HOST', 'metrics.internal'],
    ['HOST', '999.1.1.1'],
    ['HOST', '1.2.3'],
    ['HOST', 'not a host'],
    ['HOST', '[::1]'],
    ['HOST', 'localhost:5000'],
    ['HOST', 'a..b'],
    ['HOST', '-leading.dash'],
    ['HOST', 'x'.repeat(64)],
  ];
  for (const [variable, value] of rows) {
    test(`${variable}=${JSON.stringify(value)} -> ConfigError mentioning ${variable}`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) => error instanceof ConfigError && new RegExp(`\\b${variable}\\b`).test(error.message) && !error.message.includes('\n'),
      );
    });
  }

  test('a DB_NAME of letters, digits, _ and $ up to 64 characters is accepted', () => {
    assert.equal(loadConfig({ DB_NAME: 'A_b$9'.padEnd(64, 'x') }).db.database, 'A_b$9'.padEnd(64, 'x'));
  });
});

describe('loadConfig: WORKERS and DB_POOL_SIZE', () => {
  test('defaults: one worker (no fork), ten connections per worker', () => {
    const config = loadConfig({});
    assert.equal(config.workers, 1);
    assert.equal(config.poolSize, 10);
  });

  test('WORKERS=auto -> the number of CPUs', () => {
    assert.equal(loadConfig({ WORKERS: 'auto' }).workers, availableParallelism());
  });

  test('WORKERS and DB_POOL_SIZE take whole numbers', () => {
    const config = loadConfig({ WORKERS: '3', DB_POOL_SIZE: '4' });
    assert.equal(config.workers, 3);
    assert.equal(config.poolSize, 4);
  });
});

describe('loadConfig: DB_HOST as a host list', () => {
  test('one host -> a list of one server', () => {
    assert.deepEqual(loadConfig({ DB_HOST: 'db1', DB_PORT: '3307' }).db, {
      servers: [{ host: 'db1', port: 3307 }], user: 'root', password: '', database: 'restapi',
    });
  });

  test('one host with its own port', () => {
    const db = loadConfig({ DB_HOST: 'db1:3310' }).db;
    assert.deepEqual(db.servers, [{ host: 'db1', port: 3310 }]);
  });

  test('a bare IPv6 address is one host, as before; in brackets it may take a port', () => {
    assert.deepEqual(loadConfig({ DB_HOST: '::1' }).db.servers, [{ host: '::1', port: 3306 }]);
    assert.deepEqual(loadConfig({ DB_HOST: '::1', DB_PORT: '3307' }).db.servers, [{ host: '::1', port: 3307 }]);
    assert.deepEqual(loadConfig({ DB_HOST: '[fe80::1]:3310' }).db, { servers: [{ host: 'fe80::1', port: 3310 }], user: 'root', password: '', database: 'restapi' });
  });

  test('several hosts -> every server in order, a missing port is DB_PORT', () => {
    const db = loadConfig({ DB_HOST: 'g1:4001, g2 ,[::1]:4003', DB_PORT: '3307' }).db;
    assert.deepEqual(db.servers, [
      { host: 'g1', port: 4001 },
      { host: 'g2', port: 3307 },
      { host: '::1', port: 4003 },
    ]);
  });

  test('WORKERS above 1 with the embedded database is accepted: the primary starts it for its workers', () => {
    const config = loadConfig({ DB_HOST: 'embedded', WORKERS: '2' });
    assert.equal(config.workers, 2);
    assert.ok(config.embedded);
  });
});

describe('loadConfig: DB_SOCKET', () => {
  test('an absolute path -> the one server is that socket, instead of DB_HOST', () => {
    const config = loadConfig({ DB_HOST: 'localhost', DB_SOCKET: '/run/mysqld/mysqld.sock' });
    assert.deepEqual(config.db.servers, [{ socketPath: '/run/mysqld/mysqld.sock' }]);
    assert.equal(config.embedded, undefined);
  });

  test('unset or empty -> no socket', () => {
    assert.deepEqual(loadConfig({}).db.servers, [{ host: 'db', port: 3306 }]);
    assert.deepEqual(loadConfig({ DB_SOCKET: '' }).db.servers, [{ host: 'db', port: 3306 }]);
  });

  test('under npm start with DB_HOST unset, DB_SOCKET replaces the embedded default: no private server is started', () => {
    const config = loadConfig({ DB_SOCKET: '/run/mysqld/mysqld.sock' }, entryDefaults(['--embedded-by-default']));
    assert.equal(config.embedded, undefined);
    assert.deepEqual(config.db.servers, [{ socketPath: '/run/mysqld/mysqld.sock' }]);
  });

  test('with an explicit DB_HOST=embedded it names the socket of the embedded database already running (a worker\'s)', () => {
    const config = loadConfig({ DB_HOST: 'embedded', DB_SOCKET: '/tmp/data/mysql/mysqld.sock' });
    assert.ok(config.embedded);
    assert.deepEqual(config.db.servers, [{ socketPath: '/tmp/data/mysql/mysqld.sock' }]);
  });

  for (const value of ['mysqld.sock', './data/mysqld.sock', `/${'s'.repeat(107)}`]) {
    test(`DB_SOCKET=${value.slice(0, 20)}… (relative, or longer than a socket path may be) -> ConfigError naming DB_SOCKET`, () => {
      assert.throws(() => loadConfig({ DB_SOCKET: value }), (error: unknown) => error instanceof ConfigError && /DB_SOCKET/.test(error.message));
    });
  }

  test('DB_SOCKET with a DB_HOST list of several servers -> ConfigError naming both', () => {
    assert.throws(
      () => loadConfig({ DB_HOST: 'g1,g2', DB_SOCKET: '/run/mysqld/mysqld.sock' }),
      (error: unknown) => error instanceof ConfigError && /DB_SOCKET/.test(error.message) && /DB_HOST/.test(error.message),
    );
  });
});

describe('loadConfig: the embedded database', () => {
  test('DB_HOST=embedded -> a private server with its data in ./data/mysql under the working directory', () => {
    const config = loadConfig({ DB_HOST: 'embedded' });
    assert.deepEqual(config.db.servers, [{ host: 'embedded', port: 3306 }]);
    assert.deepEqual(config.embedded, { dataDir: resolve('data/mysql'), dataDirShown: './data/mysql' });
  });

  test('DB_EMBEDDED_DIR and DB_EMBEDDED_BIN are read', () => {
    const config = loadConfig({ DB_HOST: 'embedded', DB_EMBEDDED_DIR: '/srv/db', DB_EMBEDDED_BIN: '/opt/mariadb/bin/mariadbd' });
    assert.deepEqual(config.embedded, { dataDir: '/srv/db', dataDirShown: '/srv/db', bin: '/opt/mariadb/bin/mariadbd' });
  });

  test('npm start (--embedded-by-default) with DB_HOST unset -> embedded; the compiled entry keeps the spec default db', () => {
    assert.deepEqual(loadConfig({}, entryDefaults(['node', 'main.ts', '--embedded-by-default'])).db.servers, [{ host: 'embedded', port: 3306 }]);
    assert.deepEqual(loadConfig({}, entryDefaults(['node', 'dist/src/commands/start.js'])).db.servers, [{ host: 'db', port: 3306 }]);
    assert.equal(loadConfig({}, entryDefaults(['node', 'dist/src/commands/start.js'])).embedded, undefined);
  });

  test('an explicitly set DB_HOST is used as given, also under npm start', () => {
    const config = loadConfig({ DB_HOST: 'mysql.internal' }, entryDefaults(['--embedded-by-default']));
    assert.deepEqual(config.db.servers, [{ host: 'mysql.internal', port: 3306 }]);
    assert.equal(config.embedded, undefined);
  });
});

describe('loadConfig: LOG_FORMAT', () => {
  test('unset -> chosen by whether stdout is a terminal; json and pretty are read', () => {
    assert.equal(loadConfig({}).logFormat, undefined);
    assert.equal(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json');
    assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
  });

  test('another value -> ConfigError naming LOG_FORMAT', () => {
    assert.throws(() => loadConfig({ LOG_FORMAT: 'xml' }), (error: unknown) => error instanceof ConfigError && /LOG_FORMAT/.test(error.message));
  });
});

describe('loadConfig: operations and security settings', () => {
  test('defaults: contract answers, 10 failures per 60 s, no proxy trusted, metrics off', () => {
    const config = loadConfig({});
    assert.equal(config.apiCompat, 'contract');
    assert.deepEqual(config.guessing, { maxFailures: 10, windowSeconds: 60 });
    assert.equal(config.trustProxy, false);
    assert.equal(config.metrics, false);
    assert.equal(config.metricsPort, undefined);
    assert.equal(config.metricsHost, '0.0.0.0', 'METRICS_HOST is HOST unless set');
  });

  test('every variable is read', () => {
    const config = loadConfig({
      API_COMPAT: 'fastapi',
      AUTH_MAX_FAILURES: '5',
      AUTH_WINDOW_S: '300',
      TRUST_PROXY: '1',
      METRICS: 'on',
      METRICS_PORT: '9464',
    });
    assert.equal(config.apiCompat, 'fastapi');
    assert.deepEqual(config.guessing, { maxFailures: 5, windowSeconds: 300 });
    assert.equal(config.trustProxy, true);
    assert.equal(config.metrics, true);
    assert.equal(config.metricsPort, 9464);
  });

  test('METRICS_HOST unset -> METRICS_PORT listens on HOST, as before METRICS_HOST existed', () => {
    assert.equal(loadConfig({ HOST: '10.0.0.5', METRICS: 'on', METRICS_PORT: '9464' }).metricsHost, '10.0.0.5');
    assert.equal(loadConfig({ HOST: '10.0.0.5', METRICS: 'on', METRICS_PORT: '9464', METRICS_HOST: '' }).metricsHost, '10.0.0.5');
  });

  for (const address of ['127.0.0.1', '10.1.2.3', '::1', 'fd00::5', 'localhost']) {
    test(`METRICS_HOST=${address} with METRICS_PORT is accepted`, () => {
      assert.equal(loadConfig({ METRICS: 'on', METRICS_PORT: '9464', METRICS_HOST: address }).metricsHost, address);
    });
  }

  test('METRICS_HOST without METRICS_PORT -> ConfigError: /metrics would be on the API port, at HOST', () => {
    assert.throws(
      () => loadConfig({ METRICS: 'on', METRICS_HOST: '127.0.0.1' }),
      (error: unknown) => error instanceof ConfigError && /\bMETRICS_HOST\b.*\bMETRICS_PORT\b/.test(error.message) && !error.message.includes('\n'),
    );
  });

  for (const mode of ['contract', 'earlier', 'fastapi']) {
    test(`API_COMPAT=${mode} is accepted`, () => assert.equal(loadConfig({ API_COMPAT: mode }).apiCompat, mode));
  }
});

describe('loadConfig: HOST', () => {
  for (const host of ['0.0.0.0', '::', '127.0.0.1', '::1', 'fe80::1%eth0', 'localhost', 'api.internal', 'my_service', 'host-1.example.com.']) {
    test(`HOST=${host} is accepted as it is`, () => assert.equal(loadConfig({ HOST: host }).host, host));
  }
});

describe('loadConfig: METRICS_PORT', () => {
  const refused: Array<[string, Record<string, string>]> = [
    ['without METRICS', { METRICS_PORT: '9464' }],
    ['with METRICS=off', { METRICS: 'off', METRICS_PORT: '9464' }],
    ['equal to PORT', { METRICS: 'on', PORT: '9000', METRICS_PORT: '9000' }],
    ['equal to the default PORT', { METRICS: 'on', METRICS_PORT: '5000' }],
  ];
  for (const [what, env] of refused) {
    test(`${what} -> one-line ConfigError naming METRICS_PORT`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith('METRICS_PORT ') && !error.message.includes('\n'),
      );
    });
  }

  test('PORT=0 and METRICS_PORT=0 are accepted: the system gives each a port of its own', () => {
    const config = loadConfig({ METRICS: 'on', PORT: '0', METRICS_PORT: '0' });
    assert.deepEqual([config.port, config.metricsPort], [0, 0]);
  });
});

describe('loadConfig: RATE_LIMIT', () => {
  test('unset, empty or off -> no limit', () => {
    for (const value of [undefined, '', 'off']) assert.equal(loadConfig({ RATE_LIMIT: value }).rateLimit, undefined);
  });

  const accepted: Array<[value: string, requests: number, windowSeconds: number]> = [
    ['100/10s', 100, 10],
    ['5/s', 5, 1],
    ['600/m', 600, 60],
    ['1000/5m', 1000, 300],
    ['5000/1h', 5000, 3600],
  ];
  for (const [value, requests, windowSeconds] of accepted) {
    test(`RATE_LIMIT=${value} -> ${requests} requests per ${windowSeconds} s`, () => {
      assert.deepEqual(loadConfig({ RATE_LIMIT: value }).rateLimit, { requests, windowSeconds });
    });
  }

  for (const value of ['100', '100/10', '0/10s', '100/0s', '-1/10s', '100/10d', '100 / 10s', '1e3/10s', '100/10S', 'on']) {
    test(`RATE_LIMIT=${JSON.stringify(value)} -> one-line ConfigError naming RATE_LIMIT`, () => {
      assert.throws(
        () => loadConfig({ RATE_LIMIT: value }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith('RATE_LIMIT ') && !error.message.includes('\n'),
      );
    });
  }
});

describe('loadConfig: LIMITS_SHARED and LIMITS_SYNC_MS', () => {
  test('one database server -> limits per instance; a host list -> shared, synced every 500 ms', () => {
    assert.equal(loadConfig({}).sharedLimits, undefined);
    assert.equal(loadConfig({ DB_HOST: 'db1' }).sharedLimits, undefined);
    assert.deepEqual(loadConfig({ DB_HOST: 'db1,db2,db3' }).sharedLimits, { syncMs: 500 });
  });

  test('LIMITS_SHARED says so whatever DB_HOST lists; LIMITS_SYNC_MS sets the interval', () => {
    assert.deepEqual(loadConfig({ LIMITS_SHARED: 'on', LIMITS_SYNC_MS: '250' }).sharedLimits, { syncMs: 250 });
    assert.equal(loadConfig({ DB_HOST: 'db1,db2', LIMITS_SHARED: 'off' }).sharedLimits, undefined);
  });

  for (const [name, value] of [
    ['LIMITS_SHARED', 'yes'],
    ['LIMITS_SYNC_MS', '49'],
    ['LIMITS_SYNC_MS', '60001'],
    ['LIMITS_SYNC_MS', '1.5'],
    ['LIMITS_SYNC_MS', 'fast'],
  ] as const) {
    test(`${name}=${value} -> one-line ConfigError naming ${name}`, () => {
      assert.throws(() => loadConfig({ LIMITS_SHARED: 'on', [name]: value }), (error: unknown) => error instanceof ConfigError && error.message.startsWith(name) && !error.message.includes('\n'));
    });
  }
});
