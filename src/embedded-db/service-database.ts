import { serverName, socketOf } from '../config/db-servers.js';
import type { Config, DbConfig } from '../config/environment.js';
import { findServerBinaries } from './binaries.js';
import { DataDirError, EmbeddedServerError } from './embedded-server-error.js';
import { startPrivateServer, type PrivateServer } from './launcher.js';
import { answersAsRoot } from './readiness.js';
import { recordedSocket } from './socket-place.js';

/** The server the service talks to: the configured one, or the embedded one it started itself. */
export interface ServiceDatabase {
  db: DbConfig;
  /** For the start-up line: `db:3306` (every server of a DB_HOST list), or `embedded: ./data/mysql`. */
  shown: string;
  /** Present for the embedded database: resolves if its server stops on its own. */
  exited?: Promise<void>;
  /** The embedded database's own log file. */
  logFile?: string;
  /** Stops the embedded database cleanly; nothing for a configured server. */
  stop(): Promise<void>;
}

/**
 * With `DB_HOST=embedded`, starts the private server (initialising its data directory on the first
 * start) and connects to it as root on its socket; otherwise uses the configured server as given,
 * never replacing an unreachable one by the embedded database. Throws EmbeddedServerError when the
 * embedded database cannot start. With DB_SOCKET as well, the embedded database is already running
 * on that socket (a worker's, started by its primary): it is used as it is, and never stopped here.
 */
export async function openServiceDatabase(config: Pick<Config, 'db' | 'embedded'>): Promise<ServiceDatabase> {
  const { embedded } = config;
  if (embedded === undefined) {
    return { db: config.db, shown: serverName(config.db), stop: async () => {} };
  }
  const shown = `embedded: ${embedded.dataDirShown}`;
  if (socketOf(config.db) !== undefined) {
    return { db: { ...config.db, user: 'root', password: '' }, shown, stop: async () => {} };
  }
  let server: PrivateServer;
  try {
    server = await startPrivateServer({ dataDir: embedded.dataDir, binaries: findServerBinaries(embedded.bin) });
  } catch (error) {
    // Found before the server is started: the setting to change is named.
    if (error instanceof DataDirError) throw new EmbeddedServerError(`DB_EMBEDDED_DIR (${embedded.dataDirShown}) ${error.reason}`);
    throw error;
  }
  return {
    db: { ...config.db, servers: [{ socketPath: server.socketPath }], user: 'root', password: '' },
    shown,
    exited: server.exited,
    logFile: server.logFile,
    stop: () => server.stop(),
  };
}

/**
 * The database of a command that works on the schema (`db:init`, `db:migrate`): as
 * openServiceDatabase, except that an embedded database already running on its data directory (the
 * service's, under `npm start`) is used through its socket, as the backup and webhooks tools do,
 * rather than started a second time, which its data directory would refuse while in use.
 */
export async function openCommandDatabase(config: Pick<Config, 'db' | 'embedded'>): Promise<ServiceDatabase> {
  const { embedded } = config;
  if (embedded !== undefined && socketOf(config.db) === undefined) {
    const socket = recordedSocket(embedded.dataDir);
    if (socket !== undefined && (await answersAsRoot({ socketPath: socket }))) {
      return {
        db: { ...config.db, servers: [{ socketPath: socket }], user: 'root', password: '' },
        shown: `embedded: ${embedded.dataDirShown} (running)`,
        stop: async () => {},
      };
    }
  }
  return openServiceDatabase(config);
}
