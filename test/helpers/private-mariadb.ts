import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findServerBinaries, startPrivateServer } from '../../src/embedded-db/index.js';
import { freeTcpPort } from './free-ports.js';
import { skipReasonOf } from './skip-reason.js';

export interface PrivateMariaDb {
  /** Where tests connect: root without a password on 127.0.0.1. */
  server: { host: string; port: number; user: string; password: string };
  stop(): Promise<void>;
}

/** Why a private server cannot be started here, or undefined when it can (CI has the MariaDB server package). */
export const privateMariaDbSkipReason: string | undefined = skipReasonOf(() => findServerBinaries());

/**
 * A MariaDB server of the test's own, with the given server options (e.g.
 * `--innodb-autoinc-lock-mode=2`), on the embedded database's launcher: its own data directory,
 * socket and free port under a temp directory, all removed by `stop` (also when the start fails).
 */
export async function startPrivateMariaDb(options: string[]): Promise<PrivateMariaDb> {
  const dir = await mkdtemp(join(tmpdir(), 'usvc-private-mariadb-'));
  try {
    const port = await freeTcpPort();
    const running = await startPrivateServer({
      dataDir: join(dir, 'data'),
      port,
      extraArgs: ['--skip-name-resolve', '--innodb-buffer-pool-size=32M', ...options],
    });
    return {
      server: { host: '127.0.0.1', port, user: 'root', password: '' },
      stop: async () => {
        await running.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
