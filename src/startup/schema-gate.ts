import type { DbConfig } from '../config/environment.js';
import type { Admission } from '../http/server.js';
import type { Logger } from '../log/logger.js';
import type { SchemaNeeds } from './schema.js';
import { SchemaSetup, type SchemaPhase } from './schema-setup.js';
import { untilSchemaReady } from '../health/until-schema-ready.js';

export interface SchemaGateOptions {
  needs: SchemaNeeds;
  /** Requests may be served from now on, for good. */
  onReady: () => void;
  /** Every migration is done, the ones made while serving included. */
  onSettled: () => void;
  /** Tests only: the first and the longest pause between attempts while the database is unreachable. */
  retryMs?: number | undefined;
  maxRetryMs?: number | undefined;
}

/**
 * One readiness transition per start: the API refuses requests (503) until the schema is known
 * usable, then serves them for good (src/health/until-schema-ready.ts). The schema is put in
 * place here (prepare) or, with several workers, by the primary, which says where it stands (at,
 * prepared).
 */
export class SchemaGate {
  private current: SchemaPhase = 'starting';
  private readonly setup: SchemaSetup;
  private markSettled!: () => void;
  /** Resolves once every migration is done (never, if the start stops first). */
  readonly settled = new Promise<void>((resolve) => (this.markSettled = resolve));

  constructor(db: DbConfig, logger: Logger, private readonly options: SchemaGateOptions) {
    this.setup = new SchemaSetup(db, logger, {
      needs: options.needs,
      onPhase: (phase) => this.at(phase),
      onSettled: () => {
        this.markSettled();
        options.onSettled();
      },
      retryMs: options.retryMs,
      maxRetryMs: options.maxRetryMs,
    });
  }

  get phase(): SchemaPhase {
    return this.current;
  }

  get ready(): boolean {
    return this.current === 'ready';
  }

  /** Puts the schema in place here; resolves once requests are served (see SchemaSetup.run). */
  async prepare(): Promise<void> {
    if (await this.setup.run()) this.prepared();
  }

  /** Where set-up stands, until it is ready. */
  at(phase: SchemaPhase): void {
    if (phase === 'ready') return this.prepared();
    if (this.current !== 'ready') this.current = phase;
  }

  /** Ready: told by the set-up here, or by the primary of several workers. */
  prepared(): void {
    if (this.current === 'ready') return;
    this.current = 'ready';
    this.options.onReady();
  }

  admission(next?: Admission): Admission {
    return untilSchemaReady(() => this.current, next);
  }

  stop(): void {
    this.setup.stop();
  }
}
