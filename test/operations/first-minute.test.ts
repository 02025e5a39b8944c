import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';

/** What an operator meets in their first minute with the service: a production start without a password, a misspelt setting. */
describe("an operator's first minute", () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('first_minute');
  });
  after(() => db.drop());

  test('NODE_ENV=production without ACCESS_PASSWORD: the start is refused with one line naming ACCESS_PASSWORD, exit 1', async () => {
    const { code, stdout, stderr } = await runScript('src/commands/start.ts', { ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production' });
    assert.equal(code, 1);
    assert.match(stderr, /^Invalid configuration: ACCESS_PASSWORD must be set when NODE_ENV=production[^\n]*\n$/);
    assert.equal(stdout, '', 'nothing started');
  });

  test('a variable that looks like a setting (RATE_LIMT, WEBHOOK_URL, DB_TIMEOUT) gets one warning naming the closest, and the start goes on', async () => {
    const service = new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, RATE_LIMT: '10/s', WEBHOOK_URL: 'http://127.0.0.1:9/hook', DB_TIMEOUT: '5' });
    try {
      await service.logEntry('schema ready');
      const warnings = service.entries().filter((entry) => entry.level === 'warn' && typeof entry.variable === 'string');
      assert.deepEqual(
        warnings.map((entry) => [entry.variable, entry.closest]),
        [
          ['DB_TIMEOUT', warnings.find((entry) => entry.variable === 'DB_TIMEOUT')?.closest],
          ['RATE_LIMT', 'RATE_LIMIT'],
          ['WEBHOOK_URL', 'WEBHOOK_URLS'],
        ],
      );
      assert.match(String(warnings[1]!.msg), /RATE_LIMT is not a setting of this service; did you mean RATE_LIMIT\?/);
    } finally {
      await service.stop();
    }
  });
});
