import type { Config } from '../config/environment.js';
import { endpointName, firstServer } from '../config/db-servers.js';
import { answersAsRoot, isInitialised, recordedSocket } from '../embedded-db/index.js';
import { openServiceDatabase } from '../embedded-db/service-database.js';
import { BackupError } from './backup-error.js';
import type { ClientTarget } from './client-options.js';

/** The server a backup or restore talks to, and how to let it go afterwards. */
export interface ToolDatabase {
  target: ClientTarget;
  /** For the summary line: `127.0.0.1:3306`, or `embedded: ./data/mysql`. */
  shown: string;
  /** Stops the embedded server when this command started it; nothing otherwise. */
  stop(): Promise<void>;
}

/**
 * A configured server as DB_* say (the first of a DB_HOST list: a cluster's nodes hold the same
 * data). The embedded database through the socket of the server already running on its data
 * directory (the service's: the same user may enter its 0700 folder), or else started for this
 * command, as db:init does; `existing` refuses a data directory never initialised (a backup of it
 * would be of nothing).
 */
export async function openToolDatabase(config: Pick<Config, 'db' | 'embedded'>, { existing }: { existing: boolean }): Promise<ToolDatabase> {
  const { db, embedded } = config;
  if (embedded === undefined) {
    const server = firstServer(db);
    return { target: { server, user: db.user, password: db.password }, shown: endpointName(server), stop: async () => {} };
  }
  const shown = `embedded: ${embedded.dataDirShown}`;
  const socket = recordedSocket(embedded.dataDir);
  if (socket !== undefined && (await answersAsRoot({ socketPath: socket }))) {
    return { target: { server: { socketPath: socket }, user: 'root', password: '' }, shown: `${shown} (running)`, stop: async () => {} };
  }
  if (existing && !isInitialised(embedded.dataDir)) {
    throw new BackupError(`There is no embedded database in ${embedded.dataDirShown} yet: nothing to back up.`);
  }
  const opened = await openServiceDatabase(config);
  return { target: { server: firstServer(opened.db), user: 'root', password: '' }, shown, stop: () => opened.stop() };
}
