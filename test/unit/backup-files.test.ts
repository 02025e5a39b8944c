import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { quoted, writeClientOptions } from '../../src/backup/client-options.js';
import { defaultBackupFile, dumpArgs } from '../../src/backup/dump.js';

test('the default backup file names the database and the UTC time, in backups/', () => {
  assert.equal(defaultBackupFile('restapi', new Date('2025-03-01T12:34:56.789Z')), 'backups/restapi-20250301T123456Z.sql');
});

test('a dump is one transaction with routines and triggers; GTIDs are left out only for MySQL\'s mysqldump', () => {
  const mariadb = dumpArgs({ path: '/usr/bin/mariadb-dump', flavour: 'mariadb' });
  for (const option of ['--single-transaction', '--routines', '--triggers']) assert.ok(mariadb.includes(option), option);
  assert.ok(!mariadb.includes('--set-gtid-purged=OFF'));
  assert.ok(dumpArgs({ path: '/usr/bin/mysqldump', flavour: 'mysql' }).includes('--set-gtid-purged=OFF'));
});

test('the connection goes into a 0600 option file in a 0700 folder; the argument names the file, never the password', (t) => {
  const options = writeClientOptions({ server: { host: 'db', port: 3307 }, user: 'app', password: 'pa"ss\\word#1' });
  t.after(() => options.remove());
  const file = options.arg.replace(/^--defaults-file=/, '');
  assert.doesNotMatch(options.arg, /pa"ss/);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(dirname(file)).mode & 0o777, 0o700);
  assert.equal(readFileSync(file, 'utf8'), '[client]\nuser="app"\npassword="pa\\"ss\\\\word#1"\nhost="db"\nport=3307\nprotocol=TCP\n');
  options.remove();
  assert.equal(existsSync(dirname(file)), false, 'removed with its folder');
});

test('a socket connection names the socket; an empty password is left out', (t) => {
  const options = writeClientOptions({ server: { socketPath: '/run/db/mysqld.sock' }, user: 'root', password: '' });
  t.after(() => options.remove());
  assert.equal(readFileSync(options.arg.replace(/^--defaults-file=/, ''), 'utf8'), '[client]\nuser="root"\nsocket="/run/db/mysqld.sock"\nprotocol=SOCKET\n');
});

test('option file values are quoted with the escapes their reader undoes', () => {
  assert.equal(quoted(' a"b\\c\n'), '" a\\"b\\\\c\\n"');
});
