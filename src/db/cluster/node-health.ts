import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise';
import type { DbConfig, Endpoint } from '../../config/environment.js';
import { sql } from '../statements.js';

export interface ReplicationStatus {
  /** wsrep_on: the server is a Galera node. */
  galera: boolean;
  /** wsrep_ready is ON and wsrep_local_state_comment is Synced. */
  synced: boolean;
  /** wsrep_cluster_status is Primary: the node is in the component that may commit. */
  primary: boolean;
}

type VariableRow = { Variable_name: string; Value: string };

/** Why a server failed its check, for the log line; undefined when it passed. */
export type HealthFailure = string | undefined;

/** A node joining, or a donor: it still answers what it runs, it only should not be given more. */
export const NOT_SYNCED = 'Galera node not ready and Synced';
/** A node cut off from the majority: it cannot commit. */
export const NOT_PRIMARY = 'Galera node not in the primary component';

/** Why a server cannot take statements, undefined when it can: a Galera node must be ready, Synced and in the primary component. */
export function unusableReason(status: ReplicationStatus): HealthFailure {
  if (!status.galera) return undefined;
  if (!status.primary) return NOT_PRIMARY;
  return status.synced ? undefined : NOT_SYNCED;
}

/** Reads the two SHOW results of statements.ts into a status. */
export function replicationStatus(enabled: VariableRow[], state: VariableRow[]): ReplicationStatus {
  const value = (rows: VariableRow[], name: string): string | undefined =>
    rows.find((row) => row.Variable_name.toLowerCase() === name)?.Value;
  return {
    galera: value(enabled, 'wsrep_on')?.toUpperCase() === 'ON',
    synced: value(state, 'wsrep_ready')?.toUpperCase() === 'ON' && value(state, 'wsrep_local_state_comment') === 'Synced',
    primary: value(state, 'wsrep_cluster_status') === 'Primary',
  };
}

/** A check's connection, with what it read once on opening: whether the server is a Galera node. */
interface CheckSession {
  connection: Connection;
  enabled: VariableRow[];
}

/**
 * Checks one server on a connection of its own, kept between checks: it must answer within
 * `timeoutMs` (a timer of its own: a frozen server accepts TCP connections and answers nothing,
 * and neither TCP nor the driver would give up for long) and be usable (unusableReason). A failed check
 * drops the connection; the next one reconnects. Whether the server is a Galera node is read once per
 * connection, so that a check is one round trip; and the verdict "no answer" waits until the answers
 * already received are read: a process held up past the budget (a long collection, a starved CPU)
 * runs its overdue timer before the I/O that came meanwhile, and would leave a server that answered
 * in time.
 */
export class NodeHealthCheck {
  private session: Promise<CheckSession> | undefined;

  constructor(
    private readonly db: DbConfig,
    private readonly server: Endpoint,
    private readonly timeoutMs: number,
  ) {}

  async failure(): Promise<HealthFailure> {
    let timer: NodeJS.Timeout | undefined;
    const tooLate = new Promise<HealthFailure>((resolve) => {
      // setImmediate runs after the event loop's poll for I/O, which follows the timers.
      timer = setTimeout(() => setImmediate(() => resolve(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    const failure = await Promise.race([this.statusFailure(), tooLate]);
    clearTimeout(timer);
    if (failure !== undefined) this.close();
    return failure;
  }

  close(): void {
    const session = this.session;
    this.session = undefined;
    session?.then(({ connection }) => connection.destroy(), () => {});
  }

  private async statusFailure(): Promise<HealthFailure> {
    try {
      const { connection, enabled } = await (this.session ??= this.open());
      return unusableReason(replicationStatus(enabled, await this.query(connection, sql.replicationState)));
    } catch {
      return 'no answer';
    }
  }

  private async open(): Promise<CheckSession> {
    const connection = await mysql.createConnection({
      ...this.server,
      user: this.db.user,
      password: this.db.password,
      // The check's own timer judges; the driver's only ends a connection that never opens.
      connectTimeout: 2 * this.timeoutMs,
    });
    // Errors also reach the pending query; this keeps a late one from being unhandled.
    connection.on('error', () => {});
    try {
      return { connection, enabled: await this.query(connection, sql.replicationEnabled) };
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }

  private async query(connection: Connection, statement: string): Promise<VariableRow[]> {
    const [rows] = await connection.query<Array<VariableRow & RowDataPacket>>(statement);
    return rows;
  }
}
