import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { EmbeddedServerError, startPrivateServer, type PrivateServer } from '../../src/embedded-db/index.js';
import { freeTcpPort } from '../helpers/free-ports.js';
import { listeningTcpPorts } from '../helpers/listening-ports.js';
import { isRunning } from '../helpers/mariadb-processes.js';

/** The uid and gid of `nobody` on Debian: the other local account. */
const NOBODY = 65534;
const asNobody = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
/** The command-line client, as another account would use it. */
const client = spawnSync('mariadb', ['--version']).status === 0 ? 'mariadb' : 'mysql';
const asRoot = process.getuid?.() === 0;
// The control: nobody can run the client at all, so a refusal below can only be the socket's.
const otherAccount =
  asRoot && spawnSync(asNobody[0]!, [...asNobody.slice(1), client, '--version']).status === 0
    ? undefined
    : 'needs root, setpriv and a mariadb or mysql client that nobody can run, to try the socket as another account';
const procfs = existsSync('/proc/self/net/tcp') ? undefined : 'needs /proc to list the TCP ports a process listens on';

// Every folder above the data directory lets other accounts through: only the launcher's own keep them out.
const root = mkdtempSync(join(tmpdir(), 'usvc-owner-only-'));
chmodSync(root, 0o755);
const started: PrivateServer[] = [];
after(async () => {
  await Promise.all(started.map((server) => server.stop()));
  rmSync(root, { recursive: true, force: true });
});

async function start(dataDir: string, port?: number): Promise<PrivateServer> {
  const server = await startPrivateServer({ dataDir, ...(port === undefined ? {} : { port }) });
  started.push(server);
  return server;
}

/** `mariadb --socket=… -uroot -e 'SELECT 1'`, as the account running the tests or as nobody. */
function selectOne(socketPath: string, as: 'owner' | 'nobody'): { status: number | null; output: string } {
  const command = [client, '--no-defaults', `--socket=${socketPath}`, '-uroot', '-N', '-B', '-e', 'SELECT 1'];
  const [file, ...args] = as === 'nobody' ? [...asNobody, ...command] : command;
  const run = spawnSync(file!, args, { encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

function assertOnlyTheOwnerConnects(socketPath: string): void {
  const owner = selectOne(socketPath, 'owner');
  assert.deepEqual(owner, { status: 0, output: '1' }, 'the account running the server connects as root');
  const other = selectOne(socketPath, 'nobody');
  assert.notEqual(other.status, 0, `nobody connected as root: ${other.output}`);
  assert.match(other.output, /Can't connect to local (MySQL |MariaDB )?server through socket/, 'refused before any login');
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

/** Everything under `dir` (itself included) that grants other accounts any permission. */
function openToOthers(dir: string): string[] {
  const open = (lstatSync(dir).mode & 0o007) === 0 ? [] : [dir];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, entry);
    if ((lstatSync(path).mode & 0o007) !== 0) open.push(`${path} (${(lstatSync(path).mode & 0o777).toString(8)})`);
  }
  return open;
}

describe('only the account running the embedded database reaches it', () => {
  test('another local account cannot connect to its socket as root; the account running it can', { skip: otherAccount }, async () => {
    const server = await start(join(root, 'reached'));
    assertOnlyTheOwnerConnects(server.socketPath);
  });

  test('the data directory, which holds the socket, is 0700 and owned by the account running the server; nothing in it is open to others', async () => {
    const server = await start(join(root, 'modes'));
    assert.equal(dirname(server.socketPath), server.dataDir);
    assert.equal(mode(server.dataDir), 0o700);
    assert.equal(statSync(server.dataDir).uid, process.getuid?.());
    assert.deepEqual(openToOthers(server.dataDir), []);
  });

  test('without a port asked for, the server listens on no TCP port', { skip: procfs }, async () => {
    const server = await start(join(root, 'no-tcp'));
    assert.deepEqual(listeningTcpPorts(server.pid), []);
  });

  test('with a port asked for (tests only), the server listens on that port and no other', { skip: procfs }, async () => {
    const port = await freeTcpPort();
    const server = await start(join(root, 'asked-tcp'), port);
    assert.deepEqual(listeningTcpPorts(server.pid), [port]);
  });
});

describe('a data directory whose socket path would be too long: the socket in a private folder of the temp folder', () => {
  const deepDataDir = (name: string): string => join(root, 'd'.repeat(100), name);

  test('the socket goes in a fresh 0700 folder of the temp folder, owned by the account running the server, which the stop removes', async () => {
    const server = await start(deepDataDir('long'));
    const socketDir = dirname(server.socketPath);
    assert.equal(dirname(socketDir), tmpdir());
    assert.equal(mode(socketDir), 0o700);
    assert.equal(statSync(socketDir).uid, process.getuid?.());
    assert.deepEqual(openToOthers(socketDir), []);
    assert.deepEqual(openToOthers(server.dataDir), []);
    await server.stop();
    assert.equal(existsSync(socketDir), false);
  });

  test('another local account cannot connect to that socket as root; the account running it can', { skip: otherAccount }, async () => {
    const server = await start(deepDataDir('long-reached'));
    assertOnlyTheOwnerConnects(server.socketPath);
  });

  test('the private socket folder of a run that crashed is removed by the next start', async () => {
    const dataDir = deepDataDir('long-crashed');
    const crashed = await start(dataDir);
    // The launcher died without stopping its server: the next start stops that server.
    writeFileSync(join(dataDir, 'launcher.pid'), `${await deadPid()}\n`);
    const next = await start(dataDir);
    assert.equal(isRunning(crashed.pid), false);
    assert.equal(existsSync(dirname(crashed.socketPath)), false);
    assert.notEqual(dirname(next.socketPath), dirname(crashed.socketPath));
    await next.stop();
  });
});

describe('a data directory made before', () => {
  test('one left open by an earlier version (0755, world-readable files) is tightened in place, and its data and root access kept', async () => {
    const dataDir = join(root, 'earlier');
    const first = await start(dataDir);
    await query(first, 'CREATE DATABASE kept_when_tightened');
    await first.stop();
    // What the earlier version left: its default modes under umask 022.
    chmodSync(dataDir, 0o755);
    for (const file of ['server.log', 'mysql_upgrade_info']) chmodSync(join(dataDir, file), 0o644);
    writeFileSync(join(dataDir, 'launcher.pid'), `${await deadPid()}\n`, { mode: 0o644 });

    const second = await start(dataDir);
    assert.equal(second.initialised, false);
    assert.equal(mode(dataDir), 0o700);
    assert.deepEqual(openToOthers(dataDir), []);
    assert.deepEqual(await query(second, "SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name = 'kept_when_tightened'"), [
      { name: 'kept_when_tightened' },
    ]);
  });

  test('one owned by another account is refused with one line and left as it was', { skip: !asRoot && 'needs root to give a folder to another account' }, async () => {
    const dataDir = join(root, 'someone-elses');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    chownSync(dataDir, NOBODY, NOBODY);
    await assert.rejects(start(dataDir), (error: Error) => {
      assert.ok(error instanceof EmbeddedServerError);
      assert.equal(error.message.split('\n').length, 1, error.message);
      assert.match(error.message, new RegExp(`${dataDir} belongs to uid ${NOBODY}, not to uid 0`));
      return true;
    });
    assert.equal(mode(dataDir), 0o755);
    assert.equal(statSync(dataDir).uid, NOBODY);
    assert.deepEqual(readdirSync(dataDir), []);
  });
});

async function query(server: PrivateServer, statement: string): Promise<unknown> {
  const connection = await mysql.createConnection({ socketPath: server.socketPath, user: 'root' });
  try {
    const [rows] = await connection.query(statement);
    return rows;
  } finally {
    await connection.end();
  }
}

/** The pid of a process that has already ended. */
function deadPid(): Promise<number> {
  const child = spawn('true');
  return new Promise((resolve) => child.once('exit', () => resolve(child.pid!)));
}
