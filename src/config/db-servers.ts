import type { DbConfig, Endpoint } from './environment.js';

/** The server a single connection goes to: the only one, or the first of a DB_HOST list. */
export function firstServer(db: DbConfig): Endpoint {
  return db.servers[0]!;
}

/** Several DB_HOST servers, used as one cluster. */
export function isCluster(db: DbConfig): boolean {
  return db.servers.length > 1;
}

/** The Unix socket the service connects on (DB_SOCKET, or the embedded database's), if any. */
export function socketOf(db: DbConfig): string | undefined {
  const first = firstServer(db);
  return 'socketPath' in first ? first.socketPath : undefined;
}

/** A server as log lines and the cluster name it: its socket, or `host:port`. */
export function endpointName(server: Endpoint): string {
  return 'socketPath' in server ? server.socketPath : `${server.host}:${server.port}`;
}

/** Every server, as a log line names them. */
export function serverName(db: DbConfig): string {
  return db.servers.map(endpointName).join(',');
}
