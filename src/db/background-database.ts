import type { ResultSetHeader } from 'mysql2';
import type { ConnectionSource } from './connection-source.js';
import { Database, type StatementRunner } from './database.js';
import type { Deadline } from './deadline.js';
import { Slots } from '../load/slots.js';

/**
 * A Database for work off the request path (webhook delivery): at most `slots` of its operations
 * hold a connection at once, the others wait their turn before their time budget starts. However
 * much such work there is (a hundred endpoints behind on a write-heavy load), it never takes the
 * pool from the requests that share it.
 */
export class BackgroundDatabase extends Database {
  private readonly slots: Slots;

  constructor(pool: ConnectionSource, budgetMs: number, trustMs: number, slots: number) {
    super(pool, budgetMs, trustMs);
    this.slots = new Slots(slots);
  }

  override read<T>(statement: string, values: unknown[], deadline?: Deadline): Promise<T> {
    return this.inTurn((budget) => super.read<T>(statement, values, deadline ?? budget));
  }

  override write<T = ResultSetHeader>(statement: string, values: unknown[], deadline?: Deadline): Promise<T> {
    return this.inTurn((budget) => super.write<T>(statement, values, deadline ?? budget));
  }

  override transaction<T>(work: (run: StatementRunner) => Promise<T>, deadline?: Deadline, keep?: (value: T) => boolean): Promise<T> {
    return this.inTurn((budget) => super.transaction<T>(work, deadline ?? budget, keep));
  }

  /** The operation once a slot is free, its time budget starting then. */
  private inTurn<T>(operation: (budget: Deadline) => Promise<T>): Promise<T> {
    return this.slots.run(() => operation(this.deadlineSince(performance.now())));
  }
}
