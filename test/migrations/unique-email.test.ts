import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { spawnService } from '../helpers/child-service.js';
import { createTestDatabase } from '../helpers/database.js';
import { createOldSchema, logged, userIndexes } from './support/schema-state.js';

describe('UNIQUE_EMAIL and the unique email index', () => {
  test('UNIQUE_EMAIL=on builds users_email_unique, logged with its duration, and the table then refuses an email differing only in case', async () => {
    const db = await createTestDatabase('mig_unique_on');
    try {
      await createOldSchema(db, 50);
      const first = await spawnService(db.config, { UNIQUE_EMAIL: 'on' });
      await first.process.stop();
      const built = logged(first.process.lines, 'unique email index built');
      assert.equal(built.length, 1);
      assert.equal(built[0]!.name, 'users_email_unique');
      assert.equal(typeof built[0]!.durationMs, 'number');
      const unique = await db.query<Array<{ nonUnique: number; column: string }>>(
        `SELECT non_unique AS nonUnique, column_name AS \`column\` FROM information_schema.statistics
          WHERE table_schema = DATABASE() AND table_name = 'users' AND index_name = 'users_email_unique'`,
      );
      assert.deepEqual(unique.map((row) => ({ ...row, nonUnique: Number(row.nonUnique) })), [{ nonUnique: 0, column: 'email' }]);
      await assert.rejects(db.query("INSERT INTO users (name, email) VALUES ('Copy', 'JOHN@Example.com')"), { code: 'ER_DUP_ENTRY' });

      const second = await spawnService(db.config, { UNIQUE_EMAIL: 'on' });
      await second.process.stop();
      assert.deepEqual(logged(second.process.lines, 'unique email index built'), [], 'built once');
    } finally {
      await db.drop();
    }
  });

  test('UNIQUE_EMAIL=off leaves an existing unique index in place, with one warning saying duplicates stay refused and how to drop it', async () => {
    const db = await createTestDatabase('mig_unique_off');
    try {
      await createOldSchema(db);
      await db.query('ALTER TABLE users ADD UNIQUE INDEX users_email_unique (email)');
      const service = await spawnService(db.config, { UNIQUE_EMAIL: 'off' });
      await service.process.stop();
      const warnings = service.process.entries().filter((entry) => entry.level === 'warn');
      assert.equal(warnings.length, 1);
      assert.match(String(warnings[0]!.msg), /^UNIQUE_EMAIL=off, but the unique index users_email_unique remains, so duplicate emails stay refused; to allow them: ALTER TABLE users DROP INDEX users_email_unique$/);
      assert.ok((await userIndexes(db)).includes('users_email_unique'));
    } finally {
      await db.drop();
    }
  });
});
