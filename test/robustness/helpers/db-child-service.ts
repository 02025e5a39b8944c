import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DbConfig } from '../../../src/config.js';
import { TEST_PASSWORD } from '../../helpers/service.js';
import { pollUntil } from './db-poll.js';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildService {
  baseUrl: string;
  child: ChildProcess;
  /** Every line the process wrote to stdout (its JSON log), as parsed objects. */
  logs: Array<Record<string, unknown>>;
  /** Settles when the process has exited. */
  exited: Promise<Exit>;
  /** Makes sure the process is gone: SIGKILL unless it has exited already. */
  stop(): Promise<Exit>;
}

/**
 * Runs the service as production does, `node --import tsx src/main.ts`, on 127.0.0.1 and a free
 * port, against `db`; resolves once it logged 'listening' and /readyz answers 200.
 */
export async function spawnService(db: DbConfig): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DB_HOST: db.host,
      DB_PORT: String(db.port),
      DB_USER: db.user,
      DB_PASSWORD: db.password,
      DB_NAME: db.database,
      ACCESS_PASSWORD: TEST_PASSWORD,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const stop = async (): Promise<Exit> => {
    if (!exit) child.kill('SIGKILL');
    return exited;
  };

  try {
    const listening = await pollUntil(
      'the child service to log "listening"',
      () => {
        if (exit) throw new Error(`the service exited early (${JSON.stringify(exit)}): ${stderr}`);
        return logs.find((entry) => entry.msg === 'listening');
      },
      { timeoutMs: 30_000 },
    );
    const baseUrl = `http://127.0.0.1:${String(listening.port)}`;
    await pollUntil(
      'the child service to be ready',
      async () => {
        const res = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
        await res?.body?.cancel();
        return res?.status === 200 ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    return { baseUrl, child, logs, exited, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
