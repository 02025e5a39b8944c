import { padded } from '../../db/batcher.js';
import type { Database, StatementRunner } from '../../db/database.js';
import type { Deadline } from '../../db/deadline.js';
import { eventSql } from '../../db/event-statements.js';
import { sql } from '../../db/statements.js';
import { StorageError } from '../../errors/storage-error.js';
import { updateValues } from './plain-writes.js';
import type { NewUser, UserUpdate, UserWrites } from './user-writes.js';

type WrittenType = 'user.created' | 'user.updated';

/**
 * EVENTS=on: each change and its events in one transaction, so an event exists exactly when its
 * change does. The change runs first, the events last, just before the commit: the event ids'
 * lock (see event-statements.ts) is held for as short a time as it can be. A change that finds no
 * user (or not every user of a batch) is rolled back, and records nothing.
 */
export class RecordedWrites implements UserWrites {
  readonly recordsEachChange = true;

  constructor(private readonly db: Database) {}

  createAll(users: readonly NewUser[], deadline: Deadline): Promise<number[]> {
    return this.db.transaction(async (run) => {
      const values = users.flatMap((user) => [user.name, user.email]);
      const rows = await run<Array<{ id: number }>>(sql.createUsers(users.length), values);
      if (rows.length !== users.length) throw new StorageError(new Error(`INSERT returned ${rows.length} ids for ${users.length} rows`));
      const ids = rows.map((row) => row.id);
      await recordWritten(run, 'user.created', users.map((user, i) => ({ ...user, id: ids[i]! })));
      return ids;
    }, deadline);
  }

  createOne(user: NewUser, deadline: Deadline): Promise<number> {
    return this.db.transaction(async (run) => {
      const { insertId } = await run(sql.createUser, [user.name, user.email]);
      await recordWritten(run, 'user.created', [{ ...user, id: insertId }]);
      return insertId;
    }, deadline);
  }

  updateAll(users: readonly UserUpdate[], deadline: Deadline): Promise<boolean> {
    return this.changed(deadline, async (run) => {
      const { affectedRows } = await run(sql.updateUsers(padded(users).length), updateValues(users));
      if (affectedRows !== users.length) return false;
      await recordWritten(run, 'user.updated', users);
      return true;
    });
  }

  updateOne(user: UserUpdate, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.updateUser, [user.name, user.email, user.id], (run) => recordWritten(run, 'user.updated', [user]));
  }

  remove(id: number, requestId: string | undefined, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.deleteUser, [id], (run) => recordDeleted(run, id, requestId));
  }

  updateIfTag(user: UserUpdate, hash: string, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.updateUserIfTag, [user.name, user.email, user.id, hash], (run) => recordWritten(run, 'user.updated', [user]));
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
  private changed(deadline: Deadline, work: (run: StatementRunner) => Promise<boolean>): Promise<boolean> {
    return this.db.transaction(work, deadline, (done) => done);
  }
}

/** The last of `count` new event ids; the ids are held until the transaction ends. */
async function takeIds(run: StatementRunner, count: number): Promise<number> {
  return (await run(eventSql.takeIds, [count, count])).insertId;
}

/** The events of users created or replaced (ids distinct), with what the table now holds for each. */
async function recordWritten(run: StatementRunner, type: WrittenType, users: ReadonlyArray<{ id: number; requestId?: string }>): Promise<void> {
  const first = (await takeIds(run, users.length)) - users.length + 1;
  const rows = padded(users);
  const values = [first, type, ...rows.flatMap((user) => [user.id, user.requestId ?? null]), ...rows.map((user) => user.id)];
  const { affectedRows } = await run(eventSql.recordWritten(rows.length), values);
  if (affectedRows !== users.length) throw new StorageError(new Error(`recorded ${affectedRows} events for ${users.length} changes`));
}

async function recordDeleted(run: StatementRunner, id: number, requestId: string | undefined): Promise<void> {
  await run(eventSql.recordDeleted, [await takeIds(run, 1), id, requestId ?? null]);
}
