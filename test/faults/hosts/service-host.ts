import { ServiceProcess } from '../../helpers/child-service.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { TEST_PASSWORD } from '../../helpers/service.js';
import { onCleanup } from './cleanup.js';
import type { Host } from './network.js';

export interface HostService {
  host: Host;
  baseUrl: string;
  process: ServiceProcess;
  stop(): Promise<void>;
}

/**
 * The service as production runs it, in a test host's namespace of its own (so that a partition can
 * cut one instance from a node and not the other), listening on the host's address; resolves once
 * /readyz is 200 and every worker serves.
 */
export async function startHostService(host: Host, env: Record<string, string>): Promise<HostService> {
  const workers = Number(env.WORKERS ?? '1');
  const child = new ServiceProcess({ PORT: '0', HOST: host.address, ACCESS_PASSWORD: TEST_PASSWORD, DB_USER: 'root', DB_PASSWORD: '', ...env }, 'src/commands/start.ts', {
    wrapper: ['ip', 'netns', 'exec', host.namespace],
  });
  const forget = onCleanup(`service in ${host.namespace}`, () => {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  });
  const stop = async (): Promise<void> => {
    await child.stop();
    forget();
  };
  try {
    const listening = await child.logEntry('listening', 60_000);
    const baseUrl = `http://${host.address}:${String(listening.port)}`;
    await pollUntil(
      `the service in ${host.role} to be ready`,
      async () => {
        const res = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
        await res?.body?.cancel();
        return res?.status === 200 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await pollUntil('every worker to serve', () => (child.entries().filter((entry) => entry.msg === 'schema ready').length >= workers ? true : undefined), { timeoutMs: 60_000 });
    return { host, baseUrl, process: child, stop };
  } catch (error) {
    await stop();
    const log = child.lines.slice(-8).join('\n');
    throw new Error(`${(error as Error).message}\n${log}\n${child.stderr.slice(-2000)}`);
  }
}
