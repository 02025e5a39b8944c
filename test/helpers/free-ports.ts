import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * The lowest port the system hands out for outgoing connections and port 0. Ports below it are
 * taken only by servers that name them, so one found free there stays free while a Galera node
 * gets round to binding it; one from port 0 could meanwhile become some client's local port.
 */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

const LOWEST = 20_000;

function listenOn(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a private database server (whose own port 0
 * would mean 3306). Another process may take it before the server binds; the start then fails. Only
 * the tests, the benchmark and the test runner start private servers on a TCP port, so it lives here.
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

/**
 * `count` distinct ports free on 127.0.0.1 right now, below the ephemeral range, for servers that
 * cannot be told to pick their own (a Galera node's peer and state-transfer ports): all are held
 * open until all are known.
 */
export async function freePorts(count: number): Promise<number[]> {
  const high = Math.max(LOWEST + 1000, ephemeralLow());
  const held: Server[] = [];
  try {
    for (let tries = 0; held.length < count; tries++) {
      if (tries > count * 50) throw new Error(`no ${count} free ports found between ${LOWEST} and ${high}`);
      const server = await listenOn(LOWEST + Math.floor(Math.random() * (high - LOWEST)));
      if (server) held.push(server);
    }
    return held.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}
