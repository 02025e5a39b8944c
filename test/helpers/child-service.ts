import type { DbConfig } from '../../src/config/environment.js';
import { dbEnv } from './child-process.js';
import { pollUntil } from './poll-until.js';
import { TEST_PASSWORD } from './service.js';
import { ServiceProcess } from './service-process.js';

export interface ChildService {
  baseUrl: string;
  process: ServiceProcess;
}

/**
 * Runs the service as production does, `node --import tsx src/main.ts`, on 127.0.0.1 and a free
 * port, against `db` (`env` adds or replaces variables); resolves once it logged 'listening' and
 * /readyz answers 200.
 */
export async function spawnService(db: DbConfig, env: Record<string, string> = {}): Promise<ChildService> {
  const child = new ServiceProcess({ ...dbEnv(db), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, ...env });
  try {
    const listening = await child.logEntry('listening', 30_000);
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
    return { baseUrl, process: child };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
