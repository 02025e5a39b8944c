import type { Database, StatementRunner } from '../../db/database.js';
import type { Deadline } from '../../db/deadline.js';
import { eventSql } from '../../db/event-statements.js';
import { sql } from '../../db/statements.js';
import { StorageError } from '../../errors/storage-error.js';
import { latestOfEachUser, updateValues } from './plain-writes.js';
import { paddedSize } from '../../db/batcher.js';
import type { NewUser, UserUpdate, UserWrites } from './user-writes.js';

type WrittenType = 'user.created' | 'user.updated';

/** What recording writes tell of the events they commit. */
export interface EventRecording {
  /** After each commit that recorded events: they now wait to be numbered. */
  committed(): void;
}

/**
 * EVENTS=on: each change and its events in one transaction, so an event exists exactly when its
 * change does. The change runs first and its events after it, without ids: they are numbered once
 * committed (events/event-numbering.ts), so no lock is held through the commit and concurrent
 * changes commit side by side. A change that finds no user (or not every user of a batch) is
 * rolled back, and records nothing. `committed` is told after each commit that recorded events.
 */
export class RecordedWrites implements UserWrites {
  constructor(
    private readonly db: Database,
    private readonly committed: () => void = () => {},
  ) {}

  async createAll(users: readonly NewUser[], deadline: Deadline): Promise<number[]> {
    const ids = await this.db.transaction(async (run) => {
      const values = users.flatMap((user) => [user.name, user.email]);
      const rows = await run<Array<{ id: number }>>(sql.createUsers(users.length), values);
      if (rows.length !== users.length) throw new StorageError(new Error(`INSERT returned ${rows.length} ids for ${users.length} rows`));
      const created = rows.map((row) => row.id);
      await recordChanges(run, 'user.created', users, created);
      return created;
    }, deadline);
    this.committed();
    return ids;
  }

  async createOne(user: NewUser, deadline: Deadline): Promise<number> {
    const id = await this.db.transaction(async (run) => {
      const { insertId } = await run(sql.createUser, [user.name, user.email]);
      await recordChanges(run, 'user.created', [user], [insertId]);
      return insertId;
    }, deadline);
    this.committed();
    return id;
  }

  /** One statement leaves each user as its last change does; every change gets its event, in order. */
  updateAll(changes: readonly UserUpdate[], deadline: Deadline): Promise<boolean> {
    return this.changed(deadline, async (run) => {
      const targets = latestOfEachUser(changes);
      const { affectedRows } = await run(sql.updateUsers(paddedSize(targets.length)), updateValues(targets));
      if (affectedRows !== targets.length) return false;
      await recordChanges(run, 'user.updated', changes);
      return true;
    });
  }

  updateOne(user: UserUpdate, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.updateUser, [user.name, user.email, user.id], (run) => recordChanges(run, 'user.updated', [user]));
  }

  remove(id: number, requestId: string | undefined, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.deleteUser, [id], (run) => recordDeleted(run, id, requestId));
  }

  updateIfTag(user: UserUpdate, hash: string, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.updateUserIfTag, [user.name, user.email, user.id, hash], (run) => recordChanges(run, 'user.updated', [user]));
  }

  removeIfTag(id: number, hash: string, requestId: string | undefined, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.deleteUserIfTag, [id, hash], (run) => recordDeleted(run, id, requestId));
  }

  /** One user's change and its event, committed only when the statement found the user. */
  private ifFound(deadline: Deadline, statement: string, values: unknown[], record: (run: StatementRunner) => Promise<void>): Promise<boolean> {
    return this.changed(deadline, async (run) => {
      if ((await run(statement, values)).affectedRows === 0) return false;
      await record(run);
      return true;
    });
  }

  /** A change committed only when `work` says it happened. */
  private async changed(deadline: Deadline, work: (run: StatementRunner) => Promise<boolean>): Promise<boolean> {
    const done = await this.db.transaction(work, deadline, (happened) => happened);
    if (done) this.committed();
    return done;
  }
}

/**
 * The events of users created or replaced, one per change in the order given (several may name one
 * user), each with the values that change wrote; `ids` are the users' when the changes do not carry them.
 */
async function recordChanges(run: StatementRunner, type: WrittenType, changes: ReadonlyArray<NewUser & { id?: number }>, ids?: readonly number[]): Promise<void> {
  const values: unknown[] = [];
  changes.forEach((change, i) => {
    const id = ids ? ids[i] : change.id;
    values.push(type, id, change.name, change.email, id, change.requestId ?? null);
  });
  const { affectedRows } = await run(eventSql.recordChanges(changes.length), values);
  if (affectedRows !== changes.length) throw new StorageError(new Error(`recorded ${affectedRows} events for ${changes.length} changes`));
}

async function recordDeleted(run: StatementRunner, id: number, requestId: string | undefined): Promise<void> {
  await run(eventSql.recordDeleted, [id, requestId ?? null]);
}
