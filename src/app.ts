import type { AddressInfo } from 'node:net';
import type { Pool } from 'mysql2';
import type { DbConfig } from './config.js';
import { createPool, defaultTuning, endPool, serverName, type PoolTuning } from './db/pool.js';
import { ensureSchema } from './db/schema.js';
import { registerDocsRoutes } from './docs/routes.js';
import { registerHealthRoutes } from './health.js';
import type { Handler } from './http/context.js';
import { Router } from './http/router.js';
import { createHttpServer, type HttpService, type ServerLimits } from './http/server.js';
import type { Logger } from './log.js';
import { UserStore } from './users/store.js';
import { passwordChecker } from './users/password.js';
import { registerUserRoutes } from './users/routes.js';

export interface AppOptions {
  db: DbConfig;
  accessPassword: string;
  logger: Logger;
  poolTuning?: PoolTuning;
  /** First pause between attempts to create the schema while the database is unreachable; it doubles each time. */
  schemaRetryMs?: number;
  /** The longest pause between attempts. Default 30 s. */
  schemaRetryMaxMs?: number;
  /** HTTP timeouts and sizes; defaults to serverLimits. */
  serverLimits?: Readonly<ServerLimits>;
}

export interface App {
  readonly http: HttpService;
  readonly pool: Pool;
  /** Every route the app serves (for the OpenAPI conformance test). */
  routes(): Array<{ method: string; path: string }>;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Resolves once the schema is in place; keeps retrying while the database is unreachable. */
  prepareSchema(): Promise<void>;
  /** Stops accepting, lets in-flight requests finish (forcing them closed after drainMs), closes the pool. */
  close(drainMs?: number): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const { db, logger } = options;
  const tuning = options.poolTuning ?? defaultTuning;
  const pool = createPool(db, tuning);
  const store = new UserStore(pool, tuning);
  let schemaReady = false;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let endRetryWait: (() => void) | undefined;

  const router = new Router<Handler>();
  registerUserRoutes(router, { store, passwordMatches: passwordChecker(options.accessPassword) });
  registerHealthRoutes(router, async () => schemaReady && (await store.answers()));
  registerDocsRoutes(router);
  const http = createHttpServer({ router, logger, ...(options.serverLimits ? { limits: options.serverLimits } : {}) });

  const prepareSchema = async (): Promise<void> => {
    let pauseMs = options.schemaRetryMs ?? 1000;
    while (!closed) {
      try {
        const outcome = await ensureSchema(db);
        schemaReady = true;
        logger.info(outcome === 'created' ? 'users table created and seeded' : 'users table found', {
          database: db.database,
        });
        return;
      } catch (error) {
        // An expected condition while the database starts or is away: one line saying where and why.
        logger.warn('database not reachable, retrying', { server: serverName(db), reason: reason(error), retryInMs: pauseMs });
        if (closed) return;
        await new Promise<void>((resolve) => {
          endRetryWait = resolve;
          retryTimer = setTimeout(resolve, pauseMs);
        });
        pauseMs = Math.min(pauseMs * 2, options.schemaRetryMaxMs ?? 30_000);
      }
    }
  };

  return {
    http,
    pool,
    prepareSchema,
    routes: () => router.routes(),
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        http.server.once('error', reject);
        http.server.listen(port, host, () => {
          http.server.off('error', reject);
          resolve(http.server.address() as AddressInfo);
        });
      }),
    close: async (drainMs = 10_000) => {
      closed = true;
      clearTimeout(retryTimer);
      endRetryWait?.();
      http.startDraining();
      const force = setTimeout(() => http.server.closeAllConnections(), drainMs);
      await new Promise<void>((resolve) => {
        if (!http.server.listening) return resolve();
        http.server.close(() => resolve());
        http.server.closeIdleConnections();
      });
      clearTimeout(force);
      await endPool(pool);
    },
  };
}

/** Why a connection attempt failed, in a few words (Node gives some network errors only a code). */
function reason(error: unknown): string {
  const { message, code } = error as { message?: string; code?: string };
  return message || code || String(error);
}
