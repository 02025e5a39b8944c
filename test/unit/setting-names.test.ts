import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { productionRefusal } from '../../src/config/production.js';
import { lookAlikeSettings, SETTINGS, TEST_SETTINGS } from '../../src/config/setting-names.js';
import { projectFile } from '../../src/paths.js';

describe('the settings the service knows', () => {
  test('are exactly the variables docs/configuration.md lists', () => {
    const doc = readFileSync(projectFile('docs/configuration.md'), 'utf8');
    const listed = [...doc.matchAll(/^\| ((?:`[A-Z][A-Z0-9_]*`(?:, )?)+) \|/gm)].flatMap((match) => [...match[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((name) => name[1]!));
    assert.deepEqual([...listed].sort(), [...SETTINGS, ...TEST_SETTINGS].sort());
  });
});

describe('a variable that looks like a setting but is not gets one warning naming the closest', () => {
  const cases: Array<[string, string]> = [
    ['RATE_LIMT', 'RATE_LIMIT'],
    ['WEBHOOK_URL', 'WEBHOOK_URLS'],
    ['DB_HOSTS', 'DB_HOST'],
    ['DB_PASWORD', 'DB_PASSWORD'],
    ['ACESS_PASSWORD', 'ACCESS_PASSWORD'],
    ['WORKER', 'WORKERS'],
    ['TLS_CERTFILE', 'TLS_CERT_FILE'],
  ];
  for (const [name, setting] of cases) {
    test(`${name} -> ${setting}`, () => assert.deepEqual(lookAlikeSettings({ [name]: '1' }), [[name, setting]]));
  }

  test('an unknown name in a prefix the service owns is named too (DB_TIMEOUT)', () => {
    const found = lookAlikeSettings({ DB_TIMEOUT: '5' });
    assert.equal(found.length, 1);
    assert.equal(found[0]![0], 'DB_TIMEOUT');
  });

  test("OpenSSL's and Node's certificate variables are left alone, though SSL_CERT_FILE is one edit from TLS_CERT_FILE", () => {
    assert.deepEqual(lookAlikeSettings({ SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt', SSL_CERT_DIR: '/etc/ssl/certs', NODE_EXTRA_CA_CERTS: '/ca.pem' }), []);
  });

  test('the service\'s own settings, the tests\' and the platform\'s variables are left alone', () => {
    assert.deepEqual(lookAlikeSettings({ RATE_LIMIT: '1/s', TEST_DB_HOST: 'x', PATH: '/bin', HOME: '/root', NODE_ENV: 'production', HOSTNAME: 'h', TERM: 'xterm', npm_config_cache: 'x', PWD: '/' }), []);
  });
});

describe('a production start without ACCESS_PASSWORD', () => {
  test('NODE_ENV=production and a generated password -> refused, naming ACCESS_PASSWORD', () => {
    assert.match(productionRefusal({ accessPasswordGenerated: true }, { NODE_ENV: 'production' }) ?? '', /^ACCESS_PASSWORD must be set/);
  });
  test('a set password, or no NODE_ENV=production -> allowed', () => {
    assert.equal(productionRefusal({ accessPasswordGenerated: false }, { NODE_ENV: 'production' }), undefined);
    assert.equal(productionRefusal({ accessPasswordGenerated: true }, {}), undefined);
  });
});
