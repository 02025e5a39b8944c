import type { DbConfig } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { serverName } from '../config/db-servers.js';
import { isAccessDenied } from '../db/mysql-errors.js';
import { ensureSchema } from './schema.js';
import { UnusableSchemaError } from './unusable-schema.js';

/**
 * Where set-up stands: still waiting for the database to answer (requests are served and fail as
 * any storage failure does), applying what the settings need (requests are refused with 503 until
 * it is done), or done.
 */
export type SchemaPhase = 'waiting for the database' | 'applying' | 'ready';

export interface SchemaSetupOptions {
  /** UNIQUE_EMAIL=on. */
  uniqueEmail: boolean;
  /** EVENTS=on. */
  events?: boolean;
  /** IDEMPOTENCY=on. */
  idempotency?: boolean;
  /** LIMITS_SHARED=on. */
  sharedLimits?: boolean;
  /** The first pause after a failure (1 s); it doubles up to maxRetryMs (30 s). */
  retryMs?: number;
  maxRetryMs?: number;
  /** Told each time the phase changes. */
  onPhase?: (phase: SchemaPhase) => void;
}

/**
 * Runs ensureSchema until it succeeds, until stopped. The pause after a failure starts at
 * `retryMs` and doubles up to `maxRetryMs`: a database that is away for long is not hammered. A
 * schema that cannot be used (UnusableSchemaError) is no reason to wait: it is thrown.
 */
export class SchemaSetup {
  private readonly stopping = new AbortController();
  private retryTimer: NodeJS.Timeout | undefined;
  private endRetryWait: (() => void) | undefined;

  constructor(
    private readonly db: DbConfig,
    private readonly logger: Logger,
    private readonly options: SchemaSetupOptions,
  ) {}

  /** True once the schema is in place; false if stopped first. */
  async run(): Promise<boolean> {
    const { retryMs = 1000, maxRetryMs = 30_000, uniqueEmail, events = false, idempotency = false, sharedLimits = false } = this.options;
    const { signal } = this.stopping;
    let pauseMs = retryMs;
    while (!signal.aborted) {
      try {
        await ensureSchema(this.db, { logger: this.logger, uniqueEmail, events, idempotency, sharedLimits, signal, reached: () => this.options.onPhase?.('applying') });
        this.options.onPhase?.('ready');
        return true;
      } catch (error) {
        if (error instanceof UnusableSchemaError) throw error;
        // The database stopped answering: requests fail as any storage failure does meanwhile. A
        // refusal of its own (a migration that failed) leaves the schema half done: still 503.
        if (!isServerAnswer(error)) this.options.onPhase?.('waiting for the database');
        if (signal.aborted) return false;
        if (isAccessDenied(error)) {
          // Reached, and refused: the account is what to fix (or to create). The server's reason names the user, never the password.
          this.logger.warn('database refused the credentials (check DB_USER and DB_PASSWORD), retrying', {
            server: serverName(this.db),
            user: this.db.user,
            reason: reason(error),
            retryInMs: pauseMs,
          });
        } else {
          // An expected condition while the database starts or is away: one line saying where and why.
          const msg = isServerAnswer(error) ? 'schema set-up failed, retrying' : 'database not reachable, retrying';
          this.logger.warn(msg, { server: serverName(this.db), reason: reason(error), retryInMs: pauseMs });
        }
        await new Promise<void>((resolve) => {
          this.endRetryWait = resolve;
          this.retryTimer = setTimeout(resolve, pauseMs);
        });
        pauseMs = Math.min(pauseMs * 2, maxRetryMs);
      }
    }
    return false;
  }

  stop(): void {
    this.stopping.abort();
    clearTimeout(this.retryTimer);
    this.endRetryWait?.();
  }
}

/** The server answered with an error of its own (a refused statement), as opposed to not answering at all. */
function isServerAnswer(error: unknown): boolean {
  return typeof (error as { sqlState?: unknown }).sqlState === 'string' && (error as { fatal?: unknown }).fatal !== true;
}

/** Why a connection attempt failed, in a few words (Node gives some network errors only a code). */
function reason(error: unknown): string {
  const { message, code } = error as { message?: string; code?: string };
  return message || code || String(error);
}
