import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** TCP state 0A in /proc/net/tcp: LISTEN. */
const LISTEN = '0A';

export interface ListeningSocket {
  /** The local address as Node writes it: `127.0.0.1`, `0.0.0.0`, `::1`, `::`. */
  address: string;
  port: number;
}

/** The TCP sockets a process listens on, IPv4 and IPv6, with the address each is bound to (Linux: read from /proc). */
export function listeningTcpSockets(pid: number): ListeningSocket[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (socket !== undefined) inodes.add(socket);
    } catch {
      // Closed while we looked.
    }
  }
  const sockets: ListeningSocket[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue; // No IPv6 on this machine.
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state !== LISTEN || inode === undefined || !inodes.has(inode)) continue;
      const [hex, port] = local!.split(':') as [string, string];
      sockets.push({ address: addressOf(hex), port: parseInt(port, 16) });
    }
  }
  return sockets;
}

/** The TCP ports a process listens on, IPv4 and IPv6 (Linux: read from /proc). */
export function listeningTcpPorts(pid: number): number[] {
  return [...new Set(listeningTcpSockets(pid).map((socket) => socket.port))].sort((a, b) => a - b);
}

/** /proc/net/tcp's address: 32-bit words in the machine's byte order (little-endian on the machines the tests run on). */
function addressOf(hex: string): string {
  const bytes = hex.match(/.{8}/g)!.flatMap((word) => word.match(/../g)!.reverse());
  if (bytes.length === 4) return bytes.map((byte) => parseInt(byte, 16)).join('.');
  // The URL parser writes an IPv6 address in its shortest form, as Node does.
  return new URL(`http://[${bytes.join('').match(/.{4}/g)!.join(':')}]`).hostname.slice(1, -1);
}
