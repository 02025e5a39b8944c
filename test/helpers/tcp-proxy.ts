import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * How the proxy treats traffic:
 * - `forward`: a plain TCP relay to the target.
 * - `refuse`: nothing listens on the port (connection refused); open links are reset.
 * - `blackhole`: connections are accepted and open links stay open, but every byte is dropped in
 *   both directions, as on a network partition. Links that lost bytes are torn down on the next
 *   `forward`, since their protocol stream is broken.
 */
export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** Client connections currently open through the proxy. */
  readonly openLinks: number;
  /**
   * MySQL commands the clients have sent through the proxy so far: packets with sequence id 0,
   * each a statement, a prepare, a ping... as the database server receives them.
   */
  readonly commands: number;
  setMode(mode: ProxyMode): Promise<void>;
  /**
   * Closes the database side of every open link without telling the client: the client learns
   * that its connection is dead only when it next sends, and what it sends reaches no database.
   */
  severSilently(): void;
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket | undefined;
  broken: boolean;
}

/** A TCP proxy on 127.0.0.1 (port 0) in front of `target`, which a test can cut and restore. */
export async function startTcpProxy(target: { host: string; port: number }, mode: ProxyMode = 'forward'): Promise<TcpProxy> {
  const links = new Set<Link>();
  let commands = 0;
  let current: ProxyMode = mode;
  let server: Server | undefined;
  let port = 0;

  const drop = (link: Link): void => {
    if (!links.delete(link)) return;
    for (const socket of [link.client, link.upstream]) socket?.destroy();
  };

  const blackhole = (link: Link): void => {
    link.broken = true;
    link.client.unpipe();
    link.upstream?.unpipe();
    link.client.removeAllListeners('data').on('data', () => {}).resume();
    link.upstream?.removeAllListeners('data').on('data', () => {}).resume();
  };

  const accept = (client: Socket): void => {
    const link: Link = { client, upstream: undefined, broken: false };
    links.add(link);
    client.on('error', () => drop(link));
    client.on('close', () => drop(link));
    if (current === 'blackhole') return blackhole(link);
    const upstream = connect(target.port, target.host);
    link.upstream = upstream;
    const upstreamGone = (): void => {
      if (link.upstream === upstream) drop(link);
    };
    upstream.on('error', upstreamGone);
    upstream.on('close', upstreamGone);
    client.on('data', countCommands());
    client.pipe(upstream);
    upstream.pipe(client);
  };

  /** Reads the packet headers of one client's stream (3 bytes of length, 1 of sequence id) and counts those that start a command. */
  const countCommands = (): ((chunk: Buffer) => void) => {
    let skip = 0;
    const header: number[] = [];
    return (chunk) => {
      for (let i = 0; i < chunk.length; ) {
        if (skip > 0) {
          const taken = Math.min(skip, chunk.length - i);
          skip -= taken;
          i += taken;
          continue;
        }
        header.push(chunk[i++]!);
        if (header.length < 4) continue;
        if (header[3] === 0) commands++;
        skip = header[0]! | (header[1]! << 8) | (header[2]! << 16);
        header.length = 0;
      }
    };
  };

  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const next = createServer(accept);
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        next.off('error', reject);
        port = (next.address() as { port: number }).port;
        server = next;
        resolve();
      });
    });

  const stopListening = (): Promise<void> =>
    new Promise((resolve) => {
      const closing = server;
      server = undefined;
      if (!closing) return resolve();
      closing.close(() => resolve());
    });

  const setMode = async (next: ProxyMode): Promise<void> => {
    current = next;
    if (next === 'refuse') {
      for (const link of [...links]) drop(link);
      await stopListening();
    } else if (next === 'blackhole') {
      for (const link of links) blackhole(link);
      if (!server) await listen();
    } else {
      for (const link of [...links]) if (link.broken) drop(link);
      if (!server) await listen();
    }
  };

  const severSilently = (): void => {
    for (const link of links) {
      const upstream = link.upstream;
      if (!upstream) continue;
      link.upstream = undefined;
      link.client.unpipe();
      upstream.unpipe();
      upstream.destroy();
      link.client.once('data', () => drop(link)).resume();
    }
  };

  // Listen once even when starting refused, so the port is known and stays ours.
  await listen();
  if (mode === 'refuse') await stopListening();

  return {
    get port() {
      return port;
    },
    get mode() {
      return current;
    },
    get openLinks() {
      return links.size;
    },
    get commands() {
      return commands;
    },
    setMode,
    severSilently,
    async close() {
      for (const link of [...links]) drop(link);
      await stopListening();
    },
  };
}
