import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

/** The database may stay silent this long; a stalled client must not count as database silence. */
const BUDGET_MS = 800;
const EXTRA_ROWS = 60_000;

let service: RunningService;
before(async () => {
  service = await startService('listdeadline', { poolTuning: { ...defaultTuning, operationTimeoutMs: BUDGET_MS } });
  const batch = Array.from({ length: 1000 }, (_, i) => [`Bulk user ${i} with a name long enough to weigh`, `bulk-${i}@example.com`]);
  for (let done = 0; done < EXTRA_ROWS; done += batch.length) {
    await service.db.query('INSERT INTO users (name, email) VALUES ?', [batch]);
  }
});
after(() => service.close());

/** Reads the list, stopping for `stallMs` after the first chunk, as a slow client would. */
function readListStalling(stallMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${service.baseUrl}/api/users?pwd=${TEST_PASSWORD}`, (res) => {
      const chunks: Buffer[] = [];
      let stalled = false;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (stalled) return;
        stalled = true;
        res.pause();
        setTimeout(() => res.resume(), stallMs);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the database silence limit of a listing', () => {
  test('a client that stalls longer than the limit still gets the whole list: its pauses are not database silence', async () => {
    const { status, body } = await readListStalling(BUDGET_MS * 3);
    assert.equal(status, 200);
    const users = JSON.parse(body) as unknown[];
    assert.equal(users.length, 10 + EXTRA_ROWS);
  });
});
