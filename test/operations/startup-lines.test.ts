import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiKeyLine } from '../../src/auth/api-key-file.js';
import { apiKeyDigest, newApiKey } from '../../src/auth/api-key.js';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { waitUntil } from '../helpers/poll-until.js';
import { dbEnv } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('startup_lines');
});
after(() => db.drop());

const serve = (env: Record<string, string> = {}) => new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, ...env });

/** The service's lines as they came, by message, without the access lines. */
const messages = (service: ServiceProcess): string[] => service.entries().map((entry) => String(entry.msg)).filter((msg) => msg !== 'request');

describe('the lines of a start and a stop, in the order things happen', { concurrency: false }, () => {
  test('a first start: listening (saying the schema is not ready yet), the table created and seeded, schema ready (the API serves), then each index build, online; SIGTERM: shutting down, draining, then a last line saying the shutdown is complete', async () => {
    const service = serve();
    try {
      await service.logEntry('schema migrated');
      service.signal('SIGTERM');
      assert.deepEqual(await service.exited, { code: 0, signal: null });
      await service.logEntry('shutdown complete');
      assert.deepEqual(messages(service), [
        'listening',
        'users table created and seeded',
        'schema ready',
        'migration applied',
        'migration applied',
        'migration applied',
        'schema migrated',
        'shutting down',
        'draining',
        'shutdown complete',
      ]);
      const listening = await service.logEntry('listening');
      assert.match(String(listening.schema), /not ready/, 'the listening line says the API does not serve yet');
      assert.deepEqual(
        listening.features,
        { auth: 'off', events: 'off', webhookEndpoints: 0, idempotency: 'off', rateLimit: 'off', limits: 'per instance', workers: 1, tls: 'off', tracing: 'off' },
        'and names every optional feature, here all off',
      );
      const migrated = await service.logEntry('schema migrated');
      assert.deepEqual([migrated.applied, migrated.version, migrated.needed], [3, 3, 3], 'the version the database is at, and what the settings need');
    } finally {
      await service.stop();
    }
  });

  test('the start-up line names the optional features that are on: AUTH with how many API keys, EVENTS, how many webhook endpoints (never their URLs), IDEMPOTENCY, RATE_LIMIT, WORKERS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usvc-startup-lines-'));
    const keysFile = join(dir, 'api-keys');
    writeFileSync(keysFile, ['ci', 'ops'].map((name) => apiKeyLine(name, ['users:write'], apiKeyDigest(newApiKey()))).join('\n') + '\n');
    const secretUrls = ['http://127.0.0.1:9/hooks/s3cret-in-path', 'http://127.0.0.1:9/hook?token=s3cret-in-query'];
    const service = serve({
      AUTH: 'writes',
      API_KEYS_FILE: keysFile,
      EVENTS: 'on',
      WEBHOOK_URLS: secretUrls.join(','),
      WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      IDEMPOTENCY: 'on',
      RATE_LIMIT: '100/10s',
      WORKERS: '2',
    });
    try {
      const listening = await service.logEntry('listening', 30_000);
      assert.deepEqual(listening.features, { auth: 'writes', apiKeys: 2, events: 'on', webhookEndpoints: 2, idempotency: 'on', rateLimit: '100/10s', limits: 'per instance', workers: 2, tls: 'off', tracing: 'off' });
      assert.doesNotMatch(JSON.stringify(listening), /s3cret|127\.0\.0\.1:9\//, 'no webhook URL, so no secret a URL may carry');
      await waitUntil('both workers to listen', () => messages(service).filter((msg) => msg === 'listening').length === 2);
      service.signal('SIGTERM');
      assert.deepEqual(await service.exited, { code: 0, signal: null });
      await service.logEntry('shutdown complete');
      const stops = messages(service).filter((msg) => msg.endsWith('stopped') || msg === 'shutdown complete');
      assert.deepEqual(stops, ['worker stopped', 'worker stopped', 'shutdown complete'], 'with WORKERS, the primary says last that the shutdown is complete');
      assert.equal(messages(service).at(-1), 'shutdown complete');
    } finally {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
