import { spawn } from 'node:child_process';
import { chmodSync, closeSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findServerBinaries, type ServerBinaries, type ServerFlavour } from './binaries.js';
import { initialiseDataDir, userArgs } from './data-dir.js';
import { EmbeddedServerError } from './embedded-server-error.js';
import { closeToOthers, makeDataDirPrivate } from './owner-only.js';
import { answersAsRoot } from './readiness.js';
import { socketInDataDir, socketInPrivateTempDir, type SocketPlace } from './socket-place.js';
import { clearEarlierRun, recordOwner, stopPid, type RunFiles } from './stale.js';

export interface PrivateServerOptions {
  /**
   * Where the server keeps its data; initialised when empty or missing, reused otherwise. It is made
   * (or tightened to) 0700, and refused when another account owns it.
   */
  dataDir: string;
  /**
   * The uid allowed to own the data directory instead of the running user's: for a caller that hands
   * it to another account on purpose (a Galera node run as root, whose state transfer writes as nobody).
   */
  dataDirOwner?: number;
  /**
   * Defaults to `mysqld.sock` in the data directory, or to a private 0700 folder made in the temp
   * folder when that path is too long. One given here is used as it is: its folder is the caller's
   * to keep private.
   */
  socketPath?: string;
  /** A TCP port on 127.0.0.1 to listen on as well; without one the server opens no TCP port at all. */
  port?: number;
  /** Further server options, after the launcher's own (so they may override them), e.g. wsrep settings. */
  extraArgs?: string[];
  /** The server's own log (and the initialisation's); defaults to `server.log` in the data directory. */
  logFile?: string;
  /** The binaries to use; found with findServerBinaries() when absent. */
  binaries?: ServerBinaries;
  /** How long the server may take to answer after it was started. Default 60 s. */
  startTimeoutMs?: number;
  /** How long a clean shutdown may take before SIGKILL. Default 30 s. */
  stopTimeoutMs?: number;
}

export interface PrivateServer {
  pid: number;
  socketPath: string;
  port: number | undefined;
  dataDir: string;
  logFile: string;
  flavour: ServerFlavour;
  version: string;
  /** True when this start initialised the data directory. */
  initialised: boolean;
  /** Resolves when the server process ends, for whatever reason. */
  exited: Promise<void>;
  /** SIGTERM, wait for a clean shutdown, SIGKILL as the last resort. Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Starts a MariaDB/MySQL server of its own on the machine's installed binaries: initialises the data
 * directory when it is new, clears what a crashed earlier run left, and resolves once the server
 * answers as root without a password on its socket. Only the user running it reaches that socket:
 * it lies in a 0700 folder (the data directory, or a private one in the temp folder), and no TCP
 * port is opened unless one is asked for. The server runs in its own process group, so a Ctrl-C at
 * the terminal reaches the caller, which decides when to stop it.
 */
export async function startPrivateServer(options: PrivateServerOptions): Promise<PrivateServer> {
  if (options.port !== undefined && !(Number.isInteger(options.port) && options.port > 0 && options.port < 65536)) {
    // Port 0 would mean the server's default, 3306, not "any free port".
    throw new EmbeddedServerError(`A private server needs a port from 1 to 65535, got ${options.port}`);
  }
  const binaries = options.binaries ?? findServerBinaries();
  const dataDir = resolve(options.dataDir);
  const logFile = resolve(options.logFile ?? join(dataDir, 'server.log'));
  makeDataDirPrivate(dataDir, options.dataDirOwner);
  const files: RunFiles = {
    dataDir,
    pidFile: join(dataDir, 'server.pid'),
    ownerFile: join(dataDir, 'launcher.pid'),
    socketPath: options.socketPath === undefined ? socketInDataDir(dataDir) : resolve(options.socketPath),
  };
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
  await clearEarlierRun(files, stopTimeoutMs);
  const initialised = await initialiseDataDir(binaries, dataDir, logFile);
  // What an earlier version or the install tool left readable by everyone.
  closeToOthers(dataDir);
  const socket: SocketPlace =
    files.socketPath === undefined ? socketInPrivateTempDir(dataDir) : { path: files.socketPath, release() {} };

  const logStart = fileSize(logFile);
  const log = openSync(logFile, 'a', 0o600);
  const child = spawn(binaries.server, serverArgs(binaries, files, socket.path, logFile, options), {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const spawnFailed = new Promise<never>((_, reject) =>
    child.once('error', (error) => reject(new EmbeddedServerError(`${binaries.server} could not run: ${error.message}`))),
  );
  if (child.pid === undefined) await spawnFailed.finally(() => socket.release());
  const pid = child.pid!;
  recordOwner(files);

  let stopping: Promise<void> | undefined;
  // A server that has already ended is not signalled: its pid may belong to another process by now.
  const ended = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const stop = (): Promise<void> =>
    (stopping ??= (ended() ? Promise.resolve() : stopPid(pid, stopTimeoutMs))
      .then(() => exited)
      .then(() => {
        rmSync(files.ownerFile, { force: true });
        socket.release();
      }));
  try {
    await Promise.race([untilAnswering(socket.path, exited, options.startTimeoutMs ?? 60_000), spawnFailed]);
    // The server makes it 0777; its folder keeps others out already, and this keeps `ls` honest.
    chmodSync(socket.path, 0o600);
  } catch (error) {
    await stop();
    const tail = logTail(logFile, logStart);
    throw new EmbeddedServerError(`${(error as Error).message}; see ${logFile}${tail === '' ? '' : `:\n${tail}`}`);
  }
  return {
    pid,
    socketPath: socket.path,
    port: options.port,
    dataDir,
    logFile,
    flavour: binaries.flavour,
    version: binaries.version,
    initialised,
    exited,
    stop,
  };
}

function serverArgs(binaries: ServerBinaries, files: RunFiles, socketPath: string, logFile: string, options: PrivateServerOptions): string[] {
  const network =
    options.port === undefined ? ['--skip-networking'] : [`--port=${options.port}`, '--bind-address=127.0.0.1'];
  return [
    // First, or the server reads /etc/mysql and listens where the system's server does.
    '--no-defaults',
    `--datadir=${files.dataDir}`,
    `--socket=${socketPath}`,
    `--pid-file=${files.pidFile}`,
    `--log-error=${logFile}`,
    ...network,
    ...(binaries.flavour === 'mysql' ? ['--mysqlx=OFF'] : []),
    ...userArgs(),
    ...(options.extraArgs ?? []),
  ];
}

async function untilAnswering(socketPath: string, exited: Promise<void>, timeoutMs: number): Promise<void> {
  let ended = false;
  void exited.then(() => (ended = true));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await answersAsRoot({ socketPath })) return;
    if (ended) throw new Error('the database server stopped during start-up');
    if (Date.now() > deadline) throw new Error(`the database server did not answer within ${timeoutMs / 1000} s`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The last lines the server logged in this run: what a person needs to see why it did not start. */
function logTail(file: string, from: number): string {
  try {
    const lines = readFileSync(file).subarray(from).toString('utf8').trimEnd().split('\n');
    return lines.slice(-8).join('\n');
  } catch {
    return '';
  }
}
