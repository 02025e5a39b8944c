import type { DbConfig } from '../config.js';
import type { Logger } from '../log.js';
import { ensureSchema } from './schema.js';

/** Runs ensureSchema until it succeeds, pausing `retryMs` after each failure, until stopped. */
export class SchemaSetup {
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private endRetryWait: (() => void) | undefined;

  constructor(
    private readonly db: DbConfig,
    private readonly logger: Logger,
    private readonly retryMs = 2000,
  ) {}

  /** True once the schema is in place; false if stopped first. */
  async run(): Promise<boolean> {
    while (!this.stopped) {
      try {
        const outcome = await ensureSchema(this.db);
        this.logger.info(outcome === 'created' ? 'users table created and seeded' : 'users table found', {
          database: this.db.database,
        });
        return true;
      } catch (error) {
        this.logger.error('database not ready, retrying', error, { retryInMs: this.retryMs });
        if (this.stopped) return false;
        await new Promise<void>((resolve) => {
          this.endRetryWait = resolve;
          this.retryTimer = setTimeout(resolve, this.retryMs);
        });
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
