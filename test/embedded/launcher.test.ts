import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { EmbeddedServerError, findServerBinaries, startPrivateServer, type PrivateServer } from '../../src/embedded-db/index.js';
import { projectRoot } from '../../src/paths.js';
import { maxConnections } from '../../src/startup/connection-budget.js';
import { freeTcpPort } from '../helpers/free-ports.js';
import { isRunning, killServersOn } from '../helpers/mariadb-processes.js';

/** The uid and gid of `nobody` on Debian. */
const NOBODY = 65534;

const root = mkdtempSync(join(tmpdir(), 'usvc-launcher-'));
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

async function scalar(server: PrivateServer, statement: string): Promise<unknown> {
  const connection = await mysql.createConnection({ socketPath: server.socketPath, user: 'root' });
  try {
    const [rows] = await connection.query(statement);
    return Object.values((rows as Array<Record<string, unknown>>)[0] ?? {})[0];
  } finally {
    await connection.end();
  }
}


describe('startPrivateServer', () => {
  test('an empty data directory is initialised; the server answers on its socket only and logs to a file there', async () => {
    const dataDir = join(root, 'fresh');
    const server = await start(dataDir);
    assert.equal(server.initialised, true);
    assert.equal(server.socketPath, join(dataDir, 'mysqld.sock'));
    assert.equal(server.logFile, join(dataDir, 'server.log'));
    assert.ok(existsSync(server.logFile));
    assert.equal(Number(await scalar(server, 'SELECT @@skip_networking')), 1);
    await server.stop();
    assert.equal(isRunning(server.pid), false);
  });

  test("the primary's max_connections reading reaches a socket-only server (DB_HOST=embedded names no host)", async () => {
    const server = await start(join(root, 'budget'));
    const db = { servers: [{ socketPath: server.socketPath }], user: 'root', password: '', database: 'budget' };
    assert.equal(await maxConnections(db), Number(await scalar(server, 'SELECT @@max_connections')));
    await server.stop();
  });

  test('a later start reuses the data: what was stored is still there and nothing is initialised again', async () => {
    const dataDir = join(root, 'reused');
    const first = await start(dataDir);
    await scalar(first, 'CREATE DATABASE kept_across_restarts');
    await first.stop();
    const second = await start(dataDir);
    assert.equal(second.initialised, false);
    assert.equal(await scalar(second, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'kept_across_restarts'"), 1);
    await second.stop();
  });

  test('a first start interrupted while moving the new data in is redone on the next start', async () => {
    const dataDir = join(root, 'half-made');
    mkdirSync(join(dataDir, 'performance_schema'), { recursive: true });
    writeFileSync(join(dataDir, 'performance_schema', 'leftover'), 'x');
    writeFileSync(join(dataDir, 'ibdata1'), 'not a tablespace');
    const server = await start(dataDir);
    assert.equal(server.initialised, true);
    assert.equal(Number(await scalar(server, 'SELECT 1')), 1);
    await server.stop();
  });

  test('with a port it also answers over TCP on 127.0.0.1, as root without a password', async () => {
    const port = await freeTcpPort();
    const server = await start(join(root, 'tcp'), port);
    assert.equal(server.port, port);
    const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
    const [rows] = await connection.query('SELECT 1 AS one');
    assert.deepEqual(rows, [{ one: 1 }]);
    await connection.end();
    await server.stop();
  });

  test('a server left running by a starter that died is stopped, and the next start succeeds', async () => {
    const dataDir = join(root, 'orphaned');
    const orphan = await start(dataDir);
    writeFileSync(join(dataDir, 'launcher.pid'), `${await deadPid()}\n`);
    const next = await start(dataDir);
    assert.equal(isRunning(orphan.pid), false);
    assert.notEqual(next.pid, orphan.pid);
    await next.stop();
  });

  test('stale pid and socket files of a dead server do not block the start', async () => {
    const dataDir = join(root, 'stale');
    await (await start(dataDir)).stop();
    writeFileSync(join(dataDir, 'server.pid'), `${await deadPid()}\n`);
    writeFileSync(join(dataDir, 'launcher.pid'), `${await deadPid()}\n`);
    const server = await start(dataDir);
    assert.equal(Number(await scalar(server, 'SELECT 1')), 1);
    await server.stop();
  });

  test('a data directory whose server belongs to a live process is refused as in use', async (t) => {
    const dataDir = join(root, 'in-use');
    const running = await start(dataDir);
    const owner = spawn('sleep', ['30']);
    t.after(() => owner.kill('SIGKILL'));
    writeFileSync(join(dataDir, 'launcher.pid'), `${owner.pid}\n`);
    await assert.rejects(start(dataDir), (error: Error) => error instanceof EmbeddedServerError && /in use/.test(error.message));
    assert.equal(isRunning(running.pid), true);
    await running.stop();
  });

  test('port 0 is refused: to the server it would mean 3306', async () => {
    await assert.rejects(startPrivateServer({ dataDir: join(root, 'port-zero'), port: 0 }), EmbeddedServerError);
  });
});

describe('startPrivateServer as an ordinary user', () => {
  const asNobody = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
  const possible = process.getuid?.() === 0 && spawnSync('setpriv', [...asNobody, 'true']).status === 0;
  test('the server starts and stops for a user without privileges (here: nobody, under setpriv)', { skip: !possible && 'needs root and setpriv' }, async () => {
    // The checkout may be closed to nobody (a clone in a 0700 temporary folder, say): what nobody
    // runs is the launcher bundled with its imports into one file in a folder nobody can read.
    const dataDir = mkdtempSync(join(tmpdir(), 'usvc-launcher-user-'));
    chmodSync(dataDir, 0o755);
    try {
      const entry = join(dataDir, 'start-and-stop.ts');
      writeFileSync(
        entry,
        [
          `import { startPrivateServer } from ${JSON.stringify(join(projectRoot, 'src/embedded-db/index.ts'))};`,
          "const server = await startPrivateServer({ dataDir: process.argv[2]! });",
          'console.log(JSON.stringify({ uid: process.getuid!(), pid: server.pid }));',
          'await server.stop();',
        ].join('\n'),
      );
      const bundle = join(dataDir, 'start-and-stop.mjs');
      await bundled(entry, bundle);
      const home = join(dataDir, 'home');
      mkdirSync(home);
      chownSync(home, NOBODY, NOBODY);
      const child = spawnSync('setpriv', [...asNobody, process.execPath, bundle, join(home, 'data')], {
        encoding: 'utf8',
        cwd: home,
        env: { ...process.env, HOME: home },
        timeout: 60_000,
      });
      assert.equal(child.status, 0, child.stderr);
      const { uid, pid } = JSON.parse(child.stdout) as { uid: number; pid: number };
      assert.equal(uid, NOBODY);
      assert.equal(isRunning(pid), false);
      assert.equal(statSync(join(home, 'data', 'mysql')).uid, NOBODY, 'the data belong to the user');
    } finally {
      killServersOn(join(dataDir, 'home', 'data'));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** `entry` and everything it imports (mysql2 included) as one ES module, with esbuild (tsx's own compiler). */
async function bundled(entry: string, outfile: string): Promise<void> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // mysql2 is CommonJS and requires Node's modules by name.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

describe('findServerBinaries', () => {
  test('finds the installed server and, for MariaDB, its install tool', () => {
    const found = findServerBinaries();
    assert.match(found.server, /(mariadbd|mysqld)$/);
    if (found.flavour === 'mariadb') assert.match(found.installDb ?? '', /install_db|install-db/);
  });

  test('an explicitly named binary that does not exist is refused, never replaced by another', () => {
    assert.throws(
      () => findServerBinaries('/nonexistent/mariadbd'),
      (error: Error) => error instanceof EmbeddedServerError && /DB_EMBEDDED_BIN/.test(error.message),
    );
  });

  test('no server anywhere: the error says what to install', () => {
    assert.throws(
      () => findServerBinaries(undefined, { path: '', systemDirs: [] }),
      (error: Error) => /apt-get install mariadb-server/.test(error.message) && /brew install mariadb/.test(error.message),
    );
  });
});

/** The pid of a process that has already ended. */
function deadPid(): Promise<number> {
  const child = spawn('true');
  return new Promise((resolve) => child.once('exit', () => resolve(child.pid!)));
}
