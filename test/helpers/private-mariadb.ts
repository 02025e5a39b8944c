import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from '../../bench/service.js';
import { pollUntil } from './poll-until.js';

export interface PrivateMariaDb {
  /** Where tests connect: root without a password on 127.0.0.1. */
  server: { host: string; port: number; user: string; password: string };
  stop(): Promise<void>;
}

const INSTALL_DB = '/usr/bin/mariadb-install-db';
const MARIADBD = '/usr/sbin/mariadbd';

/** Why a private server cannot be started here, or undefined when it can (CI has the MariaDB server package). */
export const privateMariaDbSkipReason: string | undefined =
  existsSync(INSTALL_DB) && existsSync(MARIADBD) ? undefined : `no ${MARIADBD} or ${INSTALL_DB}: install the Debian "mariadb-server" package`;

/**
 * A MariaDB server of the test's own, with the given server options (e.g.
 * `--innodb-autoinc-lock-mode=2`): its own data directory, socket and free port under a temp
 * directory, all removed by `stop` (which is also run when the start fails).
 */
export async function startPrivateMariaDb(options: string[]): Promise<PrivateMariaDb> {
  const dir = await mkdtemp(join(tmpdir(), 'usvc-private-mariadb-'));
  const datadir = join(dir, 'data');
  await promisify(execFile)(INSTALL_DB, ['--no-defaults', `--datadir=${datadir}`, '--auth-root-authentication-method=normal', '--skip-test-db'], {
    timeout: 60_000,
  }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const port = await freePort();
  const child = spawn(
    MARIADBD,
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      `--socket=${join(dir, 'mysqld.sock')}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--log-error=${join(dir, 'error.log')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      '--skip-name-resolve',
      // mariadbd refuses to run as root unless told to.
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
      '--innodb-buffer-pool-size=32M',
      ...options,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const server = { host: '127.0.0.1', port, user: 'root', password: '' };
  try {
    await pollUntil(
      'the private mariadbd to accept connections',
      async () => {
        if (child.exitCode !== null) {
          const log = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
          throw new Error(`the private mariadbd exited during start: ${log.slice(-600)}`);
        }
        const connection = await mysql.createConnection(server).catch(() => undefined);
        await connection?.end();
        return connection === undefined ? undefined : true;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, stop };
}
