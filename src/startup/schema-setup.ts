import type { DbConfig } from '../config/environment.js';
import type { Logger } from '../log/logger.js';
import { serverName } from '../config/db-servers.js';
import { isAccessDenied } from '../db/mysql-errors.js';
import { ensureSchema, type SchemaNeeds } from './schema.js';
import { UnusableSchemaError } from './unusable-schema.js';

/**
 * Where set-up stands: starting (the database not reached yet: requests are refused with 503), waiting
 * for the database (it did not answer: requests are served and fail as any storage failure does),
 * applying what requests need (refused with 503 until it is done), or ready: from then on for good,
 * whatever the rest of the set-up does (index builds go on while requests are served).
 */
export type SchemaPhase = 'starting' | 'waiting for the database' | 'applying' | 'ready';

export interface SchemaSetupOptions {
  /** What the settings need (schemaNeeds). */
  needs: SchemaNeeds;
  /** The first pause after a failure (1 s); it doubles up to maxRetryMs (30 s). */
  retryMs?: number;
  maxRetryMs?: number;
  /** Told each time the phase changes. */
  onPhase?: (phase: SchemaPhase) => void;
  /** Told once every migration is done, the index builds included. */
  onSettled?: () => void;
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
  private served = false;

  constructor(
    private readonly db: DbConfig,
    private readonly logger: Logger,
    private readonly options: SchemaSetupOptions,
  ) {}

  /**
   * True once requests may be served (every step they wait for is done); false if stopped first.
   * Rejects with an UnusableSchemaError before that. Index builds go on afterwards, retried while
   * they fail, without ever refusing a request again.
   */
  run(): Promise<boolean> {
    return new Promise((resolve, reject) => {
      void this.untilDone(resolve, reject).then(() => resolve(false));
    });
  }

  private async untilDone(serve: (served: boolean) => void, fail: (error: unknown) => void): Promise<void> {
    const { retryMs = 1000, maxRetryMs = 30_000, needs } = this.options;
    const { signal } = this.stopping;
    const phase = (next: SchemaPhase): void => {
      if (!this.served) this.options.onPhase?.(next);
    };
    let pauseMs = retryMs;
    while (!signal.aborted) {
      try {
        await ensureSchema(this.db, {
          ...needs,
          logger: this.logger,
          signal,
          holding: () => phase('applying'),
          serving: () => {
            phase('ready');
            this.served = true;
            serve(true);
          },
        });
        this.options.onSettled?.();
        return;
      } catch (error) {
        if (error instanceof UnusableSchemaError && !this.served) return fail(error);
        if (signal.aborted) return;
        // The database stopped answering: requests fail as any storage failure does meanwhile. A
        // refusal of its own (a migration that failed) leaves the schema half done: still 503.
        if (!isServerAnswer(error)) phase('waiting for the database');
        this.warn(error, pauseMs);
        await new Promise<void>((resolve) => {
          this.endRetryWait = resolve;
          this.retryTimer = setTimeout(resolve, pauseMs);
        });
        pauseMs = Math.min(pauseMs * 2, maxRetryMs);
      }
    }
  }

  private warn(error: unknown, pauseMs: number): void {
    if (isAccessDenied(error)) {
      // Reached, and refused: the account is what to fix (or to create). The server's reason names the user, never the password.
      this.logger.warn('database refused the credentials (check DB_USER and DB_PASSWORD), retrying', {
        server: serverName(this.db),
        user: this.db.user,
        reason: reason(error),
        retryInMs: pauseMs,
      });
      return;
    }
    // An expected condition while the database starts or is away: one line saying where and why.
    const msg = this.served
      ? 'online migration failed, retrying while requests are served'
      : isServerAnswer(error)
        ? 'schema set-up failed, retrying'
        : 'database not reachable, retrying';
    this.logger.warn(msg, { server: serverName(this.db), reason: reason(error), retryInMs: pauseMs });
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
