import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Which process of a WORKERS=N child service (see child-service.ts) is which, read from ps and /proc (Linux). */

/** The worker processes of a WORKERS=N service: the primary's children that run the service's entry point. */
export function workerPids(primaryPid: number): number[] {
  const ps = spawnSync('ps', ['--ppid', String(primaryPid), '-o', 'pid=,args='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .filter((line) => line.includes('src/commands/start.ts'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/**
 * Which of these processes holds the server's end of the TCP connection coming from `clientPort`
 * to `serverPort` (Linux: read from /proc), so that a test knows which worker a connection reached.
 */
export function connectionOwner(pids: readonly number[], serverPort: number, clientPort: number): number | undefined {
  const sockets = serverEnds(serverPort, clientPort);
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => sockets.has(linkOf(`/proc/${pid}/fd/${fd}`)));
    } catch {
      return false;
    }
  });
}

function linkOf(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** `socket:[inode]` of every socket whose local port is serverPort and remote port clientPort. */
function serverEnds(serverPort: number, clientPort: number): Set<string> {
  const hex = (port: number): string => port.toString(16).toUpperCase().padStart(4, '0');
  const found = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = row.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${hex(serverPort)}`) && fields[2]?.endsWith(`:${hex(clientPort)}`)) found.add(`socket:[${fields[9]}]`);
    }
  }
  return found;
}
