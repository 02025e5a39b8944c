import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { findServerBinaries } from '../../../src/embedded-db/index.js';
import { initialiseDataDir } from '../../../src/embedded-db/data-dir.js';
import { GALERA_INNODB_ARGS, GALERA_PROVIDER } from '../../helpers/galera/galera-node.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { onCleanup } from '../hosts/cleanup.js';
import type { Host } from '../hosts/network.js';
import { readGrastate, recoveredPosition, type GraState, type Position } from './grastate.js';

/** Galera's ports, the same on every host since each has its own address. */
export const SQL_PORT = 3306;
const GROUP_PORT = 4567;

/**
 * Failure detection in seconds, as the loopback cluster tests use; the primary component is not
 * restored by itself after a whole-cluster crash (pc.recovery off), so the operator's bootstrap is
 * what brings it back, as docs/scaling.md describes.
 */
const PROVIDER_OPTIONS = [
  'gcache.size=64M',
  'gcache.recover=yes',
  'pc.recovery=FALSE',
  'evs.keepalive_period=PT0.5S',
  'evs.suspect_timeout=PT2S',
  'evs.inactive_timeout=PT4S',
  'evs.inactive_check_period=PT0.5S',
  'evs.install_timeout=PT3S',
];

/**
 * One mariadbd of a Galera cluster running inside a test host's namespace (`ip netns exec`, which
 * execs the server: the child's pid is the server's). It listens on its host's address; the harness
 * itself talks to it on its Unix socket, which no partition reaches.
 */
export class HostNode {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly host: Host,
    readonly dir: string,
  ) {}

  get name(): string {
    return this.host.role;
  }
  get dataDir(): string {
    return join(this.dir, 'data');
  }
  get socket(): string {
    return join(this.dir, 'mysqld.sock');
  }
  get errorLog(): string {
    return join(this.dir, 'error.log');
  }
  get groupAddress(): string {
    return `${this.host.address}:${GROUP_PORT}`;
  }
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** A data directory for the founding node (initialised here); joiners receive theirs by state transfer. */
  async initialise(): Promise<void> {
    mkdirSync(this.dataDir, { recursive: true });
    await initialiseDataDir(findServerBinaries(), this.dataDir, this.errorLog);
  }

  /**
   * Starts the server joining `peers`, or founding the cluster (`--wsrep-new-cluster`); resolves once
   * it is Synced. A `position` recovered after a crash is passed on as systemd's galera_recovery
   * does (`--wsrep-start-position`), so that a joiner can catch up by IST instead of a full copy.
   */
  async start(peers: string[], { bootstrap = false, position }: { bootstrap?: boolean; position?: Position } = {}): Promise<void> {
    mkdirSync(this.dataDir, { recursive: true });
    // rsync's receiving daemon drops root for nobody: the files must be nobody's for a state transfer to replace them.
    spawnSync('chown', ['-R', 'nobody:nogroup', this.dataDir]);
    const args = [...this.serverArgs(), `--wsrep-cluster-address=gcomm://${peers.join(',')}`, ...(bootstrap ? ['--wsrep-new-cluster'] : []), ...(position ? [`--wsrep-start-position=${position.uuid}:${position.seqno}`] : [])];
    const log = openSync(this.errorLog, 'a');
    const child = spawn('ip', ['netns', 'exec', this.host.namespace, findServerBinaries().server, ...args], { detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const forget = onCleanup(`${this.name}'s mariadbd`, () => this.killNow());
    void this.exited.then(forget);
    await this.waitSynced();
  }

  /** SIGKILL: a crash, or a power cut when every node gets it at once. */
  async kill(): Promise<void> {
    this.killNow();
    await this.exited;
  }

  /** SIGSTOP: the process stays, its connections stay open, nothing answers. */
  freeze(): void {
    this.signal('SIGSTOP');
  }

  thaw(): void {
    this.signal('SIGCONT');
  }

  grastate(): GraState | undefined {
    return readGrastate(join(this.dataDir, 'grastate.dat'));
  }

  /** The last committed position after a crash, by `mariadbd --wsrep-recover` (the server is not running). */
  async recover(): Promise<Position> {
    const log = join(this.dir, 'recover.log');
    const output = openSync(log, 'a');
    const child = spawn(findServerBinaries().server, [...this.serverArgs({ networking: false, log }), `--wsrep-cluster-address=gcomm://`, '--wsrep-recover'], { stdio: ['ignore', output, output] });
    closeSync(output);
    await new Promise((resolve) => child.once('exit', resolve));
    const text = readFileSync(log, 'utf8');
    const position = recoveredPosition(text);
    if (position === undefined) throw new Error(`${this.name}: --wsrep-recover logged no position:\n${text.split('\n').slice(-15).join('\n')}`);
    return position;
  }

  async state(): Promise<string | undefined> {
    const rows = await this.query<Array<{ Value: string }>>("SHOW STATUS LIKE 'wsrep_local_state_comment'");
    return rows[0]?.Value;
  }

  /** One statement on a connection of its own over the socket; `causal` waits until the node applied every write committed before. */
  async query<T>(statement: string, values: unknown[] = [], { causal = false } = {}): Promise<T> {
    const connection = await mysql.createConnection({ socketPath: this.socket, user: 'root', connectTimeout: 3000, dateStrings: true });
    try {
      if (causal) await connection.query('SET SESSION wsrep_sync_wait = 1');
      const [rows] = await connection.query(statement, values);
      return rows as T;
    } finally {
      connection.destroy();
    }
  }

  killNow(): void {
    this.signal('SIGKILL');
  }

  private signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      process.kill(this.child!.pid!, signal);
    } catch {
      // Ended meanwhile.
    }
  }

  /** How the last start caught up: a full copy (SST) or the missing writes only (IST). */
  lastJoin(): string {
    const log = this.logTail(400);
    const start = log.lastIndexOf('Starting MariaDB');
    return log.slice(start).includes('rsync SST completed') ? 'SST' : 'IST';
  }

  private async waitSynced(): Promise<void> {
    await pollUntil(
      `${this.name} to be Synced`,
      async () => {
        if (!this.running) throw new Error(`${this.name} exited while starting:\n${this.logTail()}`);
        return (await this.state().catch(() => undefined)) === 'Synced' ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
  }

  private serverArgs({ networking = true, log = this.errorLog } = {}): string[] {
    const address = this.host.address;
    return [
      '--no-defaults',
      `--datadir=${this.dataDir}`,
      `--socket=${networking ? this.socket : join(this.dir, 'recover.sock')}`,
      `--pid-file=${join(this.dir, 'mysqld.pid')}`,
      `--log-error=${log}`,
      ...(networking ? [`--port=${SQL_PORT}`, `--bind-address=${address}`] : ['--skip-networking']),
      '--user=root',
      ...GALERA_INNODB_ARGS,
      '--innodb-flush-log-at-trx-commit=1',
      '--max-connections=300',
      '--wsrep-on=ON',
      `--wsrep-provider=${GALERA_PROVIDER}`,
      `--wsrep-node-name=${this.name}`,
      `--wsrep-node-address=${address}:${GROUP_PORT}`,
      `--wsrep-sst-receive-address=${address}:4444`,
      `--wsrep-provider-options=${[`gmcast.listen_addr=tcp://${address}:${GROUP_PORT}`, `ist.recv_addr=${address}:4568`, ...PROVIDER_OPTIONS].join(';')}`,
      '--wsrep-sst-method=rsync',
    ];
  }

  private logTail(lines = 25): string {
    try {
      return readFileSync(this.errorLog, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no error log)';
    }
  }
}
