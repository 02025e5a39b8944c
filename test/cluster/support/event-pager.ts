import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import type { GaleraNode } from '../../helpers/galera/galera-node.js';

const PAGE = 10;
/** Between pages that were not full: the reader keeps up without spinning a core. */
const PAUSE_MS = 2;

/**
 * A reader of the outbox on one node as a consumer resumes it: `WHERE id > last ORDER BY id LIMIT n`,
 * over and over, each page in its own autocommit snapshot and without waiting for the cluster
 * (no wsrep_sync_wait), so it sees what the node has committed at that moment. Every id it is
 * given is kept in order; errors (a node in a view change) are counted and the reader goes on.
 */
export class EventPager {
  /** Every id handed out, in the order it came. */
  readonly seen: number[] = [];
  /** How many ids came while the load ran (before stop). */
  seenDuringLoad = 0;
  pages = 0;
  errors = 0;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();
  private connection: mysql.Connection | undefined;

  constructor(
    readonly node: GaleraNode,
    private readonly database: string,
  ) {}

  /**
   * What differs between the ids this reader was given and `ids`, the node's final outbox in order:
   * an id it never saw appeared behind its position, after a greater one had been handed out.
   */
  differences(ids: readonly number[]): string[] {
    const seen = new Set(this.seen);
    const all = new Set(ids);
    const problems: string[] = [];
    const missed = ids.filter((id) => !seen.has(id));
    if (missed.length > 0) problems.push(`${this.node.name}: ${missed.length} ids never handed to the reader, first ${missed.slice(0, 5).join(', ')}`);
    const extra = this.seen.filter((id) => !all.has(id));
    if (extra.length > 0) problems.push(`${this.node.name}: ${extra.length} ids read that the final outbox lacks, first ${extra.slice(0, 5).join(', ')}`);
    const backwards = this.seen.findIndex((id, i) => i > 0 && id <= this.seen[i - 1]!);
    if (backwards >= 0) problems.push(`${this.node.name}: id ${this.seen[backwards]} came after ${this.seen[backwards - 1]}`);
    return problems;
  }

  start(): void {
    this.running = this.loop();
  }

  /**
   * Ends the paging, then reads on until a page comes back empty, each page first waiting until the
   * node applied every write the cluster committed before it: nothing committed is left unread.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    this.seenDuringLoad = this.seen.length;
    await this.connect();
    await this.connection!.query('SET SESSION wsrep_sync_wait = 1');
    while ((await this.page()) > 0);
    await this.connection!.end();
    this.connection = undefined;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        if ((await this.page()) < PAGE) await sleep(PAUSE_MS);
      } catch {
        this.errors++;
        this.connection?.destroy();
        this.connection = undefined;
        await sleep(50);
      }
    }
  }

  private async connect(): Promise<void> {
    this.connection ??= await mysql.createConnection({ host: '127.0.0.1', port: this.node.ports.sql, user: 'root', database: this.database, connectTimeout: 2000 });
  }

  /** One page of batches after the last id seen, their ids taken as the service reads them (from first_id to last_id); how many batches it held. */
  private async page(): Promise<number> {
    await this.connect();
    const after = this.seen.at(-1) ?? 0;
    const [rows] = await this.connection!.query<mysql.RowDataPacket[]>('SELECT first_id, last_id FROM event_batches WHERE last_id > ? ORDER BY last_id LIMIT ?', [after, PAGE]);
    this.pages++;
    for (const row of rows) for (let id = Math.max(Number(row.first_id), after + 1); id <= Number(row.last_id); id++) this.seen.push(id);
    return rows.length;
  }
}
