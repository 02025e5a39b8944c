import type { AddressInfo } from 'node:net';
import type { DbConfig } from './config.js';
import { createConnectionSource, endSource, type ConnectionSource } from './db/connection-source.js';
import { defaultTuning, type PoolTuning } from './db/pool.js';
import { SchemaSetup } from './db/schema-setup.js';
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
  /** Pause between attempts to create the schema while the database is unreachable. */
  schemaRetryMs?: number;
  /** HTTP timeouts and sizes; defaults to serverLimits. */
  serverLimits?: Readonly<ServerLimits>;
}

export interface App {
  readonly http: HttpService;
  readonly pool: ConnectionSource;
  /** Every route the app serves (for the OpenAPI conformance test). */
  routes(): Array<{ method: string; path: string }>;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Resolves once the schema is in place; keeps retrying while the database is unreachable. */
  prepareSchema(): Promise<void>;
  /** The schema was put in place by another process (the primary of several workers). */
  schemaPrepared(): void;
  /** Stops accepting, lets in-flight requests finish (forcing them closed after drainMs), closes the pool. */
  close(drainMs?: number): Promise<void>;
}

export function createApp(options: AppOptions): App {
  const { db, logger } = options;
  const tuning = options.poolTuning ?? defaultTuning;
  const pool = createConnectionSource(db, tuning, logger);
  const store = new UserStore(pool, tuning);
  let schemaReady = false;
  const schemaSetup = new SchemaSetup(db, logger, options.schemaRetryMs);

  const router = new Router<Handler>();
  registerUserRoutes(router, { store, passwordMatches: passwordChecker(options.accessPassword) });
  registerHealthRoutes(router, async () => schemaReady && (await store.answers()));
  registerDocsRoutes(router);
  const http = createHttpServer({ router, logger, ...(options.serverLimits ? { limits: options.serverLimits } : {}) });

  return {
    http,
    pool,
    prepareSchema: async () => {
      if (await schemaSetup.run()) schemaReady = true;
    },
    schemaPrepared: () => {
      schemaReady = true;
    },
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
      schemaSetup.stop();
      http.startDraining();
      const force = setTimeout(() => http.server.closeAllConnections(), drainMs);
      await new Promise<void>((resolve) => {
        if (!http.server.listening) return resolve();
        http.server.close(() => resolve());
        http.server.closeIdleConnections();
      });
      clearTimeout(force);
      await endSource(pool);
    },
  };
}
