import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** TCP state 0A in /proc/net/tcp: LISTEN. */
const LISTEN = '0A';

/** The TCP ports a process listens on, IPv4 and IPv6 (Linux: read from /proc). */
export function listeningTcpPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (socket !== undefined) inodes.add(socket);
    } catch {
      // Closed while we looked.
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue; // No IPv6 on this machine.
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === LISTEN && inode !== undefined && inodes.has(inode)) ports.add(parseInt(local!.split(':')[1]!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}
