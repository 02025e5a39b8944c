import { statSync, type BigIntStats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { unreadable } from '../config/unreadable.js';
import type { Logger } from '../log/logger.js';
import { ApiKeyFileError, parseApiKeys, readApiKeysFile, type ApiKeySet } from './api-key-file.js';

/** The file is looked at again at most this often: a deleted line stops its key within about a second. */
export const RECHECK_MS = 1000;

/**
 * The keys of API_KEYS_FILE, kept up to date without a restart: at most once per `recheckMs`, a
 * request that needs the keys has the file's stamp (inode, size, mtime, ctime) checked, and the
 * file is read again only when that changed. A file that becomes unreadable or malformed leaves
 * the keys last read in force, with one warning per distinct problem: a half-made edit must not
 * lock every client out or crash the service. No timer runs, so there is nothing to stop.
 */
export class ReloadingApiKeys {
  private keys: ApiKeySet;
  /** The stamp of the content last read, good or bad: unchanged, it is not read again. */
  private stamp: string | undefined;
  private checkedAt: number;
  private checking: Promise<void> | undefined;
  /** The problem last warned about, until the file can be used again. */
  private problem: string | undefined;

  /** Reads the file now; throws ApiKeyFileError when it cannot be used (the start then stops). */
  constructor(
    private readonly path: string,
    private readonly logger: Logger,
    private readonly recheckMs = RECHECK_MS,
  ) {
    // The stamp before the read: a change in between is then seen as a change at the next check.
    this.stamp = stampOrUndefined(path);
    this.keys = readApiKeysFile(path);
    this.checkedAt = Date.now();
  }

  /** The keys as the file says, checked again if the last check is `recheckMs` old; concurrent callers share one check. */
  current(): ApiKeySet | Promise<ApiKeySet> {
    if (Date.now() - this.checkedAt < this.recheckMs) return this.keys;
    this.checking ??= this.recheck().finally(() => {
      this.checking = undefined;
    });
    return this.checking.then(() => this.keys);
  }

  private async recheck(): Promise<void> {
    this.checkedAt = Date.now();
    try {
      const stamp = stampOf(await stat(this.path, { bigint: true }));
      if (stamp === this.stamp) return;
      this.stamp = stamp;
      this.keys = parseApiKeys(await readFile(this.path, 'utf8'));
      this.problem = undefined;
      this.logger.info('API_KEYS_FILE read again', { keys: this.keys.size });
    } catch (error) {
      if (!(error instanceof ApiKeyFileError)) this.stamp = undefined;
      const reason = error instanceof ApiKeyFileError ? error.message : `cannot be read (${unreadable(error)})`;
      if (reason === this.problem) return;
      this.problem = reason;
      this.logger.warn('API_KEYS_FILE cannot be used: the keys last read stay in force', { reason, keys: this.keys.size });
    }
  }
}

function stampOf(stats: BigIntStats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

function stampOrUndefined(path: string): string | undefined {
  try {
    return stampOf(statSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}
