import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { startPrivateServer, type PrivateServer } from '../../../src/embedded-db/index.js';
import { pollUntil } from '../poll-until.js';

export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';
const runsAsRoot = process.getuid?.() === 0;

export interface NodePorts {
  /** Client connections (the service's DB_HOST entry). */
  sql: number;
  /** Galera group communication (wsrep_node_address). */
  group: number;
  /** Incremental state transfer. */
  ist: number;
  /** Full state transfer (rsync). */
  sst: number;
}

/**
 * Failure detection in about 2-4 s instead of Galera's WAN-minded defaults (a node is suspected
 * after 2 s of silence), which is the failover window on loopback; state kept small for quick starts.
 */
const PROVIDER_OPTIONS = [
  'gcache.size=32M',
  'evs.keepalive_period=PT0.5S',
  'evs.suspect_timeout=PT2S',
  'evs.inactive_timeout=PT4S',
  'evs.inactive_check_period=PT0.5S',
  'evs.install_timeout=PT3S',
];

/** InnoDB as Galera needs it, and small enough for quick starts (the benchmark's plain server uses the same). */
export const GALERA_INNODB_ARGS = ['--skip-name-resolve', '--innodb-buffer-pool-size=32M', '--binlog-format=ROW', '--innodb-autoinc-lock-mode=2'];

/**
 * One private mariadbd of a Galera cluster on loopback, started by the embedded-database launcher
 * with the wsrep settings added: its own data directory, socket, log and ports.
 */
export class GaleraNode {
  private server: PrivateServer | undefined;
  /** Only a server known to be running is ever signalled: its pid may be reused once it exited. */
  private running = false;

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly ports: NodePorts,
  ) {}

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  get errorLog(): string {
    return join(this.dir, 'error.log');
  }

  /**
   * A joiner receives its whole data directory by state transfer: an empty `mysql` folder tells the
   * launcher not to initialise one (the first node's is initialised by it).
   */
  prepareJoiner(): void {
    mkdirSync(join(this.dataDir, 'mysql'), { recursive: true });
  }

  /** Starts the server joining `peers` (group addresses), or founding a new cluster when there are none; resolves once it is Synced. */
  async start(peers: string[]): Promise<void> {
    mkdirSync(this.dataDir, { recursive: true });
    // rsync's receiving daemon drops root for nobody, so as root the files must be nobody's for a
    // state transfer to replace them (the server, running as root, still reads and writes them).
    if (runsAsRoot) spawnSync('chown', ['-R', 'nobody:nogroup', this.dataDir]);
    try {
      await this.launch(peers);
    } catch (error) {
      this.killNow();
      throw new Error(`${this.name} did not start: ${(error as Error).message.split('\n')[0]}\n${this.problems()}`);
    }
  }

  private async launch(peers: string[]): Promise<void> {
    this.server = undefined;
    const server = await startPrivateServer({
      dataDir: this.dataDir,
      // nobody's as root (see start): the launcher refuses a data directory of another account unless told.
      ...(runsAsRoot ? { dataDirOwner: statSync(this.dataDir).uid } : {}),
      socketPath: join(this.dir, 'mysqld.sock'),
      port: this.ports.sql,
      logFile: this.errorLog,
      startTimeoutMs: 90_000,
      stopTimeoutMs: 5000,
      extraArgs: [
        ...GALERA_INNODB_ARGS,
        '--wsrep-on=ON',
        `--wsrep-provider=${GALERA_PROVIDER}`,
        `--wsrep-cluster-address=gcomm://${peers.join(',')}`,
        `--wsrep-node-name=${this.name}`,
        `--wsrep-node-address=127.0.0.1:${this.ports.group}`,
        `--wsrep-sst-receive-address=127.0.0.1:${this.ports.sst}`,
        `--wsrep-provider-options=${[`gmcast.listen_addr=tcp://127.0.0.1:${this.ports.group}`, `ist.recv_addr=127.0.0.1:${this.ports.ist}`, ...PROVIDER_OPTIONS].join(';')}`,
        '--wsrep-sst-method=rsync',
        ...(peers.length === 0 ? ['--wsrep-new-cluster'] : []),
      ],
    });
    this.server = server;
    this.running = true;
    void server.exited.then(() => {
      if (this.server === server) this.running = false;
    });
    await this.waitSynced();
  }

  /** Resolves once the node is ready and Synced; fails, with its log's tail, if it exits or takes over `timeoutMs`. */
  private async waitSynced(timeoutMs = 90_000): Promise<void> {
    let exited = false;
    void this.server!.exited.then(() => (exited = true));
    await pollUntil(
      `${this.name} to be Synced`,
      async () => {
        if (exited) throw new Error(`${this.name} exited while starting:\n${this.logTail()}`);
        return (await this.state().catch(() => undefined)) === 'Synced' ? true : undefined;
      },
      { timeoutMs, intervalMs: 100 },
    );
  }

  async state(): Promise<string | undefined> {
    const rows = await this.query<Array<{ Value: string }>>("SHOW STATUS LIKE 'wsrep_local_state_comment'");
    return rows[0]?.Value;
  }

  /**
   * Runs one statement on this node, on a connection of its own; `causal` makes it first wait until
   * the node applied every write committed anywhere in the cluster before it began.
   */
  async query<T>(statement: string, values: unknown[] = [], { causal = false } = {}): Promise<T> {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.ports.sql, user: 'root', connectTimeout: 2000, dateStrings: true });
    try {
      if (causal) await connection.query('SET SESSION wsrep_sync_wait = 1');
      const [rows] = await connection.query(statement, values);
      return rows as T;
    } finally {
      await connection.end().catch(() => connection.destroy());
    }
  }

  /** kill -9: the node vanishes mid-flight, as in a crash. */
  async kill(): Promise<void> {
    if (!this.server || !this.running) return;
    this.killNow();
    await this.server.exited;
  }

  /** SIGSTOP: the node stops answering, its connections stay open (a long pause, a hung VM). */
  freeze(): void {
    if (this.server && this.running) process.kill(this.server.pid, 'SIGSTOP');
  }

  /** SIGCONT after freeze(): the node goes on where it stopped. */
  thaw(): void {
    if (this.server && this.running) process.kill(this.server.pid, 'SIGCONT');
  }

  /** For process exit handlers, which cannot wait. */
  killNow(): void {
    if (!this.server || !this.running) return;
    try {
      process.kill(this.server.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }

  private logTail(): string {
    try {
      return readFileSync(this.errorLog, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no error log)';
    }
  }

  /** The errors and warnings of its log, which say why a node failed to join. */
  private problems(): string {
    try {
      const lines = readFileSync(this.errorLog, 'utf8').split('\n');
      return lines.filter((line) => /ERROR|Warning|rsync/.test(line)).slice(-20).join('\n');
    } catch {
      return '(no error log)';
    }
  }
}
