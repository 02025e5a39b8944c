import type { DbConfig } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { serverName } from '../config/db-servers.js';
import { ensureSchema } from './schema.js';

/**
 * Runs ensureSchema until it succeeds, until stopped. The pause after a failure starts at
 * `retryMs` and doubles up to `maxRetryMs`: a database that is away for long is not hammered.
 */
export class SchemaSetup {
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private endRetryWait: (() => void) | undefined;

  constructor(
    private readonly db: DbConfig,
    private readonly logger: Logger,
    private readonly retryMs = 1000,
    private readonly maxRetryMs = 30_000,
  ) {}

  /** True once the schema is in place; false if stopped first. */
  async run(): Promise<boolean> {
    let pauseMs = this.retryMs;
    while (!this.stopped) {
      try {
        const outcome = await ensureSchema(this.db);
        this.logger.info(outcome === 'created' ? 'users table created and seeded' : 'users table found', {
          database: this.db.database,
        });
        return true;
      } catch (error) {
        // An expected condition while the database starts or is away: one line saying where and why.
        this.logger.warn('database not reachable, retrying', { server: serverName(this.db), reason: reason(error), retryInMs: pauseMs });
        if (this.stopped) return false;
        await new Promise<void>((resolve) => {
          this.endRetryWait = resolve;
          this.retryTimer = setTimeout(resolve, pauseMs);
        });
        pauseMs = Math.min(pauseMs * 2, this.maxRetryMs);
      }
    }
    return false;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.endRetryWait?.();
  }
}

/** Why a connection attempt failed, in a few words (Node gives some network errors only a code). */
function reason(error: unknown): string {
  const { message, code } = error as { message?: string; code?: string };
  return message || code || String(error);
}
