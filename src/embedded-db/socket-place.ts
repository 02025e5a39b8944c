import { lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** Unix socket paths are limited to about 104 bytes (macOS) or 108 (Linux). */
const MAX_SOCKET_PATH = 100;
const SOCKET = 'mysqld.sock';
/** The private folders made in the temp folder for a socket. */
const PREFIX = 'usvc-mysqld-';
/** In the data directory while a server runs: the private temp folder that holds its socket. */
const RECORD = 'socket-dir';

/** Where a server's socket is, and how to remove the folder made for it (nothing when it was not made). */
export interface SocketPlace {
  path: string;
  release(): void;
}

/** `mysqld.sock` in the data directory (which is 0700), or undefined when that path is too long for a socket. */
export function socketInDataDir(dataDir: string): string | undefined {
  const path = join(dataDir, SOCKET);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH ? path : undefined;
}

/**
 * A socket in a new folder of the temp folder that only this user can enter: mkdtemp makes it 0700
 * under a name no other account can guess or take first (a fixed name in /tmp could be taken by
 * anyone). The folder is named in the data directory, so that the next start removes it if this
 * run ends without release().
 */
export function socketInPrivateTempDir(dataDir: string): SocketPlace {
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(dataDir, RECORD), `${dir}\n`, { mode: 0o600 });
  return {
    path: join(dir, SOCKET),
    release() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(join(dataDir, RECORD), { force: true });
    },
  };
}

/**
 * Where a server started on this data directory listens, if one runs: the socket in the private
 * temp folder its start recorded, else `mysqld.sock` in the data directory. Only a connection
 * tells whether a server answers there.
 */
export function recordedSocket(dataDir: string): string | undefined {
  try {
    return join(readFileSync(join(dataDir, RECORD), 'utf8').trim(), SOCKET);
  } catch {
    return socketInDataDir(dataDir);
  }
}

/** Removes the private socket folder of an earlier run that ended without removing it (it crashed). */
export function removeEarlierSocketDir(dataDir: string): void {
  const record = join(dataDir, RECORD);
  let dir: string;
  try {
    dir = readFileSync(record, 'utf8').trim();
  } catch {
    return;
  }
  // Only a folder this launcher makes, and one of this user's.
  if (basename(dir).startsWith(PREFIX) && isOwnDir(dir)) rmSync(dir, { recursive: true, force: true });
  rmSync(record, { force: true });
}

function isOwnDir(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    return stat.isDirectory() && stat.uid === process.getuid?.();
  } catch {
    return false;
  }
}
