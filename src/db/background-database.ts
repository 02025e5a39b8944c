import type { ResultSetHeader } from 'mysql2';
import type { ConnectionSource } from './connection-source.js';
import { Database, type StatementRunner } from './database.js';
import type { Deadline } from './deadline.js';

/**
 * A Database for work off the request path (webhook delivery): at most `slots` of its operations
 * hold a connection at once, the others wait their turn before their time budget starts. However
 * much such work there is (a hundred endpoints behind on a write-heavy load), it never takes the
 * pool from the requests that share it.
 */
export class BackgroundDatabase extends Database {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(pool: ConnectionSource, budgetMs: number, trustMs: number, slots: number) {
    super(pool, budgetMs, trustMs);
    this.free = slots;
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

  private async inTurn<T>(operation: (budget: Deadline) => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await operation(this.deadlineSince(performance.now()));
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
