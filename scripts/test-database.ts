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

/**
 * TEST_DB_* when set; otherwise a server answering at 127.0.0.1:3306; otherwise one private server
 * for the whole run, on a free 127.0.0.1 port (the TCP-proxy tests need one), with its data in a
 * temporary folder that is removed when it stops.
 */
export async function chooseTestDatabase(env: NodeJS.ProcessEnv = process.env): Promise<TestDatabase> {
  if (env.TEST_DB_HOST) {
    return { env: {}, shown: `TEST_DB_HOST=${env.TEST_DB_HOST}`, stop: async () => {} };
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
