import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DataDirError, EmbeddedServerError } from './embedded-server-error.js';

/** Read, write and enter for the owner; nothing for anyone else. */
export const OWNER_ONLY_DIR = 0o700;
/** The permission bits of every account but the owner and its group. */
const OTHERS = 0o007;

/**
 * Makes the data directory reachable by the user running the server only: created 0700 when new,
 * tightened to 0700 when it exists (an earlier version left it 0755). One owned by another account
 * is refused, as that account could read and change every row in it. `owner` is the uid allowed
 * instead of the running user's, for a caller that hands the folder to another account on purpose.
 */
export function makeDataDirPrivate(dataDir: string, owner = process.getuid?.()): void {
  makeFolder(dataDir);
  // No uids (Windows): no Unix sockets either, so no server to protect.
  if (owner === undefined) return;
  const stat = statSync(dataDir);
  if (stat.uid !== owner) {
    throw new EmbeddedServerError(
      `The data directory ${dataDir} belongs to uid ${stat.uid}, not to uid ${owner} that runs the database: ` +
        'anyone who owns it can read and change its data. Use a data directory of this user, or chown it to this user.',
    );
  }
  if ((stat.mode & 0o777) !== OWNER_ONLY_DIR) chmodSync(dataDir, OWNER_ONLY_DIR);
}

/**
 * Makes `dir` and any missing folder above it, each 0700, one level at a time: a path that cannot
 * be made (below /proc, say) fails at the first level that cannot, where a recursive mkdirSync may
 * retry for ever. A file where a folder belongs is named. Throws DataDirError.
 */
export function makeFolder(dir: string): void {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(at).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a file somewhere above; found on the way up.
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(at) !== at) {
        missing.unshift(at);
        continue;
      }
      throw new DataDirError(dir, `cannot be reached: ${(error as Error).message}`);
    }
    if (isDirectory) break;
    throw new DataDirError(dir, at === dir ? 'names a file, not a folder' : `cannot be made: ${at} is a file, not a folder`);
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode: OWNER_ONLY_DIR });
    } catch (error) {
      // Made meanwhile by another start: as good as made here.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(folder).isDirectory()) continue;
      throw new DataDirError(dir, `cannot be made: ${(error as Error).message}`);
    }
  }
}

/**
 * Takes every other account's permissions off what lies directly in the data directory: files an
 * earlier version or the install tool made world-readable (the server's own folders are 0700).
 * The 0700 data directory already keeps them out; this keeps a copied or moved folder closed too.
 */
export function closeToOthers(dataDir: string): void {
  for (const entry of readdirSync(dataDir)) {
    const path = join(dataDir, entry);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink() || (stat.mode & OTHERS) === 0) continue;
    try {
      chmodSync(path, stat.mode & 0o7777 & ~OTHERS);
    } catch (error) {
      // Another account's file in the data directory (a start as root, say): the server could not use it either.
      throw new EmbeddedServerError(`${path} (uid ${stat.uid}) cannot be closed to other accounts: ${(error as Error).message}`);
    }
  }
}
