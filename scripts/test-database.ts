import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answersAsRoot, startPrivateServer } from '../src/embedded-db/index.js';
import { freeTcpPort } from '../test/helpers/free-ports.js';

/** The server the test run uses, and how to let it go afterwards. */
export interface TestDatabase {
  /** TEST_DB_* for the test processes; empty when they are to use their defaults. */
  env: Record<string, string>;
  shown: string;
  stop(): Promise<void>;
}

/** A TEST_DB_* setting the run cannot use: said in one line before any test runs. */
export class TestDatabaseError extends Error {}

/** TEST_DB_PORT when set: a port number, never quietly 3306 (as Number("abc") would make it). */
function testDbPort(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.TEST_DB_PORT;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    throw new TestDatabaseError(`TEST_DB_PORT must be a port number from 1 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

/**
 * TEST_DB_HOST or TEST_DB_PORT when set (the tests use 127.0.0.1 and 3306 for the one not set);
 * otherwise a server answering at 127.0.0.1:3306; otherwise one private server for the whole run,
 * on a free 127.0.0.1 port (the TCP-proxy tests need one), with its data in a temporary folder
 * that is removed when it stops.
 */
export async function chooseTestDatabase(env: NodeJS.ProcessEnv = process.env): Promise<TestDatabase> {
  const port = testDbPort(env);
  if (env.TEST_DB_HOST || port !== undefined) {
    return { env: {}, shown: `${env.TEST_DB_HOST || '127.0.0.1'}:${port ?? 3306} (TEST_DB_*)`, stop: async () => {} };
  }
  if (await answersAsRoot({ host: '127.0.0.1', port: 3306 })) {
    return { env: {}, shown: '127.0.0.1:3306', stop: async () => {} };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'usvc-test-db-'));
  try {
    const port = await freeTcpPort();
    // Test files run four at a time, each with pools and side connections of its own.
    const server = await startPrivateServer({ dataDir, port, extraArgs: ['--max-connections=1000'] });
    return {
      env: { TEST_DB_HOST: '127.0.0.1', TEST_DB_PORT: String(port), TEST_DB_USER: 'root', TEST_DB_PASSWORD: '' },
      shown: `a private server on 127.0.0.1:${port} (${/Ver (\S+)/.exec(server.version)?.[1] ?? server.flavour})`,
      stop: async () => {
        await server.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
