import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Endpoint } from '../config/environment.js';

/** Who connects where: one server, as root on the embedded socket or as DB_USER on a configured one. */
export interface ClientTarget {
  server: Endpoint;
  user: string;
  password: string;
}

/** A private option file for the client programs, and how to remove it. */
export interface ClientOptions {
  /** The first argument of every client command: it names the file that holds the connection. */
  arg: string;
  remove(): void;
}

/**
 * Writes the connection, password included, to a 0600 option file in a new 0700 temp folder, so
 * that the password never appears on a command line (which `ps` shows to every account) nor in an
 * environment another program inherits. `--defaults-file` makes the programs read that file
 * alone: no ~/.my.cnf changes where they connect. Call remove() when done.
 */
export function writeClientOptions(target: ClientTarget): ClientOptions {
  const dir = mkdtempSync(join(tmpdir(), 'usvc-client-'));
  const file = join(dir, 'client.cnf');
  const where =
    'socketPath' in target.server
      ? [`socket=${quoted(target.server.socketPath)}`, 'protocol=SOCKET']
      : // TCP always: `localhost` would otherwise mean the client's default socket, not the service's server.
        [`host=${quoted(target.server.host)}`, `port=${target.server.port}`, 'protocol=TCP'];
  const lines = ['[client]', `user=${quoted(target.user)}`, ...(target.password === '' ? [] : [`password=${quoted(target.password)}`]), ...where];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return { arg: `--defaults-file=${file}`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An option file value in double quotes, with the escapes its reader undoes. */
export function quoted(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}
