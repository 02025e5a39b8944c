import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import mysql, { type ResultSetHeader } from 'mysql2/promise';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { clientToolsSkipReason } from '../helpers/client-tools.js';
import { createTestDatabase, testServer, type TestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { dbEnv, runScript } from '../helpers/run-script.js';

/**
 * `npm run db:backup` and `npm run db:restore` against a configured server, with the service
 * running and writing: what a backup holds, that it holds only whole transactions, and that a
 * restore replaces the users table rather than merging into it.
 */
type Row = { id: number; name: string; email: string; created_at: string };

const dir = mkdtempSync(join(tmpdir(), 'usvc-backup-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const backup = (db: TestDatabase, args: string[], vars: Record<string, string> = {}) =>
  runScript('src/commands/db-backup.ts', { ...dbEnv(db.config), ...vars }, 120_000, { cwd: dir, args: ['--embedded-by-default', ...args] });
const restore = (db: TestDatabase, args: string[]) =>
  runScript('src/commands/db-restore.ts', dbEnv(db.config), 120_000, { cwd: dir, args: ['--embedded-by-default', ...args] });

const allRows = (db: TestDatabase): Promise<Row[]> => db.query('SELECT id, name, email, created_at FROM users ORDER BY id');

describe('db:backup while the service writes, then db:restore into a fresh database', { skip: clientToolsSkipReason, concurrency: false }, () => {
  let source: TestDatabase;
  let target: TestDatabase;
  let service: ChildService;
  const file = join(dir, 'under-writes.sql');

  before(async () => {
    source = await createTestDatabase('backup_source');
    target = await createTestDatabase('backup_target');
    service = await spawnService(source.config);
    // Enough rows for the dump to take a while, so that the writers below run during it.
    for (let i = 0; i < 11; i++) await source.query("INSERT INTO users (name, email) SELECT CONCAT('bulk ', id), email FROM users");
    // Written in the same transaction as a user: a dump holding one without the other would be torn.
    await source.query('CREATE TABLE backup_ledger (user_id INT PRIMARY KEY) ENGINE=InnoDB');
  });
  after(async () => {
    await service?.process.stop();
    await source?.drop();
    await target?.drop();
  });

  test('every user acknowledged before the backup began is restored, with no half transaction and rows as stored', async (t) => {
    let writing = true;
    const acknowledged: number[] = [];
    const apiWriter = (async () => {
      for (let n = 0; writing; n++) {
        const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name: `api ${n}`, email: `api${n}@example.com` } });
        assert.equal(res.status, 201, res.text);
        acknowledged.push(Number(res.headers.get('location')!.split('/').pop()));
      }
    })();
    const connection = await mysql.createConnection({ ...testServer, database: source.config.database });
    let transactions = 0;
    const transactionWriter = (async () => {
      for (let n = 0; writing; n++) {
        await connection.beginTransaction();
        const [created] = await connection.query<ResultSetHeader>('INSERT INTO users (name, email) VALUES (?, ?)', [`tx ${n}`, `tx${n}@example.com`]);
        await connection.query('DO SLEEP(0.002)');
        await connection.query('INSERT INTO backup_ledger (user_id) VALUES (?)', [created.insertId]);
        await connection.commit();
        transactions++;
      }
    })();
    try {
      while (acknowledged.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      const ackedBefore = [...acknowledged];
      const [ackedAtStart, transactionsAtStart] = [acknowledged.length, transactions];
      const result = await backup(source, ['--out', file]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^Backed up ${source.config.database} on 127\\.0\\.0\\.1:\\d+ to .*under-writes\\.sql \\(\\d+ bytes`));
      t.diagnostic(`during the backup: ${acknowledged.length - ackedAtStart} API creates, ${transactions - transactionsAtStart} transactions`);
      writing = false;
      await Promise.all([apiWriter, transactionWriter]);
      assert.equal(statSync(file).mode & 0o777, 0o600, 'the dump is readable by its owner only');

      const restored = await restore(target, [file]);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, /replaces the users table's rows/);
      const rows = await allRows(target);
      const ids = new Set(rows.map((row) => row.id));
      assert.deepEqual(ackedBefore.filter((id) => !ids.has(id)), [], 'every user acknowledged before the backup began is in it');
      const ledger = (await target.query<Array<{ user_id: number }>>('SELECT user_id FROM backup_ledger ORDER BY user_id')).map((row) => row.user_id);
      const transactionUsers = rows.filter((row) => row.name.startsWith('tx ')).map((row) => row.id);
      assert.deepEqual(transactionUsers, ledger, 'each transaction is in the dump whole or not at all');
      const stored = new Map((await allRows(source)).map((row) => [row.id, row]));
      assert.deepEqual(rows.filter((row) => JSON.stringify(row) !== JSON.stringify(stored.get(row.id))), [], 'rows restored as they were stored');
    } finally {
      writing = false;
      await Promise.allSettled([apiWriter, transactionWriter]);
      await connection.end();
    }
  });

  test('the service runs on the restored database: ready, and serves a restored user', async (t) => {
    const restoredService = await spawnService(target.config);
    t.after(() => restoredService.process.stop());
    const read = await request(restoredService.baseUrl, 'GET', '/api/users/1');
    assert.equal(read.status, 200);
  });

  test('a restore replaces the users table: rows deleted since come back, rows added since are gone', async () => {
    const asRestored = await allRows(target);
    await target.query('DELETE FROM users WHERE id <= 5');
    await target.query("INSERT INTO users (name, email) VALUES ('Not in the dump', 'later@example.com')");
    const again = await restore(target, [file]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`holds the dump's ${asRestored.length} users`));
    assert.deepEqual(await allRows(target), asRestored);
  });
});

describe('db:backup and db:restore refuse what they cannot do, without leaving anything behind', { skip: clientToolsSkipReason }, () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('backup_refusals');
    const init = await runScript('src/commands/db-init.ts', dbEnv(db.config));
    assert.equal(init.code, 0, init.stderr);
  });
  after(() => db?.drop());

  test('a wrong DB_PASSWORD: exit 1, the server\'s refusal, the password nowhere, no file', async () => {
    const out = join(dir, 'refused.sql');
    const result = await backup(db, ['--out', out], { DB_PASSWORD: 'not-the-Password-42' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^db:backup failed: .*Access denied/);
    assert.doesNotMatch(result.stdout + result.stderr, /not-the-Password-42/);
    assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith('refused')), [], 'neither the file nor its .partial');
  });

  test('an existing --out file is never overwritten', async () => {
    const first = await backup(db, ['--out', join(dir, 'twice.sql')]);
    assert.equal(first.code, 0, first.stderr);
    const size = statSync(join(dir, 'twice.sql')).size;
    const second = await backup(db, ['--out', join(dir, 'twice.sql')]);
    assert.equal(second.code, 1);
    assert.match(second.stderr, /exists already: name another file with --out/);
    assert.equal(statSync(join(dir, 'twice.sql')).size, size);
  });

  const refusals: Array<[rule: string, args: string[], message: RegExp]> = [
    ['no file', [], /^db:restore failed: No dump file named: nothing was changed\. Usage: npm run db:restore -- FILE/],
    ['a missing file', [join(dir, 'absent.sql')], /cannot be read \(ENOENT\): nothing was changed/],
    ['a file that is not a dump', ['schema.sql'], /is not a dump of mariadb-dump or mysqldump .*: nothing was changed/],
  ];
  for (const [rule, args, message] of refusals) {
    test(`db:restore with ${rule} -> exit 1, one line saying so, nothing changed`, async () => {
      const before = await db.users();
      const result = await runScript('src/commands/db-restore.ts', dbEnv(db.config), 30_000, { args: ['--embedded-by-default', ...args] });
      assert.equal(result.code, 1);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.deepEqual(await db.users(), before);
    });
  }

  test('a password with quotes, backslashes and # reaches the server through the option file', async (t) => {
    const user = `usvc_bk_${process.pid}`;
    const password = ` q"u\\o'te#d;\\ `;
    const admin = await mysql.createConnection(testServer);
    t.after(async () => {
      await admin.query('DROP USER IF EXISTS ?@?', [user, '%']);
      await admin.query('DROP USER IF EXISTS ?@?', [user, 'localhost']);
      await admin.end();
    });
    for (const host of ['%', 'localhost']) {
      await admin.query('CREATE USER ?@? IDENTIFIED BY ?', [user, host, password]);
      await admin.query(`GRANT ALL ON \`${db.config.database}\`.* TO ?@?`, [user, host]);
    }
    const result = await backup(db, ['--out', join(dir, 'tricky.sql')], { DB_USER: user, DB_PASSWORD: password });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(existsSync(join(dir, 'tricky.sql')));
  });
});
