import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { listeningTcpSockets } from '../helpers/listening-ports.js';
import { scrape } from '../helpers/metrics.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { TEST_PASSWORD } from '../helpers/service.js';

/**
 * METRICS_HOST: the interface METRICS_PORT listens on, read from the kernel's table of listening
 * sockets. The API listens on 127.0.0.2 (HOST) and the metrics on 127.0.0.1, both loopback, so
 * that the two can be told apart without opening anything to the network.
 */

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('metrics_host');
});
after(async () => {
  await db?.drop();
});

/** The service started as in production, with METRICS_PORT chosen by the system; stopped by SIGTERM. */
async function withService(env: Record<string, string>, check: (child: ServiceProcess, metricsPort: number) => Promise<void>): Promise<void> {
  const child = new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.2', ACCESS_PASSWORD: TEST_PASSWORD, METRICS: 'on', METRICS_PORT: '0', ...env });
  try {
    const logged = await child.logEntry('metrics listening', 30_000);
    await child.logEntry('listening', 30_000);
    await check(child, Number(logged.port));
    child.signal('SIGTERM');
    assert.deepEqual(await child.exited, { code: 0, signal: null });
  } finally {
    await child.stop();
  }
}

/** The address the process `pid` listens on at `port`. */
function boundTo(pid: number, port: number): string[] {
  return listeningTcpSockets(pid).filter((socket) => socket.port === port).map((socket) => socket.address);
}

async function refused(url: string): Promise<boolean> {
  return fetch(url).then(
    () => false,
    (error: { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED',
  );
}

describe('METRICS_HOST: where METRICS_PORT listens', () => {
  for (const workers of ['1', '2']) {
    test(`WORKERS=${workers}, HOST=127.0.0.2, METRICS_HOST=127.0.0.1: the metrics port is bound to 127.0.0.1 alone`, async () => {
      await withService({ WORKERS: workers, METRICS_HOST: '127.0.0.1' }, async (child, port) => {
        assert.equal((await child.logEntry('metrics listening')).host, '127.0.0.1');
        // In a single process, the service's; with WORKERS, the primary's.
        assert.deepEqual(boundTo(child.pid, port), ['127.0.0.1']);
        await scrape(`http://127.0.0.1:${port}/metrics`);
        assert.equal(await refused(`http://127.0.0.2:${port}/metrics`), true, 'not on HOST');
        const apiPort = Number((await child.logEntry('listening')).port);
        assert.equal(await refused(`http://127.0.0.1:${apiPort}/healthz`), true, 'the API stays on HOST');
      });
    });
  }

  test('unset: METRICS_PORT listens on HOST, as before METRICS_HOST existed', async () => {
    await withService({}, async (child, port) => {
      assert.deepEqual(boundTo(child.pid, port), ['127.0.0.2']);
      await scrape(`http://127.0.0.2:${port}/metrics`);
    });
  });

  test('METRICS_HOST that is not an IP address: exit non-zero before anything starts, one line naming METRICS_HOST', async () => {
    const result = await runScript('src/commands/start.ts', { ...dbEnv(db.config), PORT: '0', METRICS: 'on', METRICS_PORT: '0', METRICS_HOST: 'metrics.internal' });
    assert.notEqual(result.code, 0);
    const lines = result.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line: ${result.stderr}`);
    assert.match(lines[0]!, /\bMETRICS_HOST\b/);
    assert.equal(result.stdout, '', 'nothing started, nothing logged');
  });
});
