import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a private server (whose own port 0
 * would mean 3306). Another process may take it before the server binds; the start then fails.
 */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
