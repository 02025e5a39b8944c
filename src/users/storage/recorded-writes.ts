import { padded, paddedSize } from '../../db/batcher.js';
import type { Database, StatementRunner } from '../../db/database.js';
import type { Deadline } from '../../db/deadline.js';
import { encodeBatch, type EventType, type RecordedChange } from '../../db/event-batches.js';
import { eventSql } from '../../db/event-statements.js';
import { sql } from '../../db/statements.js';
import { StorageError } from '../../errors/storage-error.js';
import type { UserRow } from '../rules/user.js';
import { CreationTimes } from './creation-times.js';
import { latestOfEachUser, updateValues } from './plain-writes.js';
import type { ChangeOrigin, NewUser, UserUpdate, UserWrites } from './user-writes.js';

/** What recording writes tell of the events they commit. */
export interface EventRecording {
  /** After each commit that recorded events: they now wait to be numbered. */
  committed(): void;
}

/**
 * EVENTS=on: each change and its events in one transaction, so an event exists exactly when its
 * change does. The change runs first; its events follow as one row for the whole batch, each with
 * the user as its change left it (the values written, the creation time the row holds), without
 * ids: they are numbered once committed (events/event-numbering.ts), so no lock is held through the
 * commit and concurrent changes commit side by side. A change that finds no user (or not every
 * user of a batch) is rolled back, and records nothing. `committed` is told after each commit.
 */
export class RecordedWrites implements UserWrites {
  private readonly times = new CreationTimes();

  constructor(
    private readonly db: Database,
    private readonly committed: () => void = () => {},
  ) {}

  seen(rows: readonly UserRow[]): void {
    for (const row of rows) this.times.note(row.id, row.created_at);
  }

  async createAll(users: readonly NewUser[], deadline: Deadline): Promise<number[]> {
    const ids = await this.db.transaction(async (run) => {
      const values = users.flatMap((user) => [user.name, user.email]);
      const rows = await run<Array<{ id: number; created_at: string }>>(sql.createUsersWithTimes(users.length), values);
      if (rows.length !== users.length) throw new StorageError(new Error(`INSERT returned ${rows.length} ids for ${users.length} rows`));
      await recordBatch(run, users.map((user, i) => written('user.created', rows[i]!.id, user, rows[i]!.created_at)));
      return rows;
    }, deadline);
    this.committed();
    for (const row of ids) this.times.note(row.id, row.created_at);
    return ids.map((row) => row.id);
  }

  createOne(user: NewUser, deadline: Deadline): Promise<number> {
    return this.createWith(user, deadline, async () => {});
  }

  async createWith(user: NewUser, deadline: Deadline, also: (run: StatementRunner, id: number) => Promise<void>): Promise<number> {
    const id = await this.db.transaction(async (run) => {
      const { insertId } = await run(sql.createUser, [user.name, user.email]);
      const times = await creationTimes(run, [insertId]);
      await recordBatch(run, [written('user.created', insertId, user, times.get(insertId) ?? null)]);
      await also(run, insertId);
      return insertId;
    }, deadline);
    this.committed();
    return id;
  }

  /**
   * One statement leaves each user as its last change does; every change gets its event, in order.
   * With every user's creation time remembered, the statement checks them (and a batch where one
   * no longer matches is written request by request, as one with a user missing is); otherwise they
   * are read once the rows are locked.
   */
  async updateAll(changes: readonly UserUpdate[], deadline: Deadline): Promise<boolean> {
    const targets = latestOfEachUser(changes);
    const remembered = targets.map((user) => this.times.of(user.id));
    const known = remembered.every((time) => time !== undefined);
    let read: Map<number, string | null> | undefined;
    const done = await this.changed(deadline, async (run) => {
      const size = paddedSize(targets.length);
      const statement = known ? sql.updateUsersWithTimes(size) : sql.updateUsers(size);
      const values = known ? [...updateValues(targets), ...padded(targets.map((user, i) => [user.id, remembered[i]!])).flat()] : updateValues(targets);
      const { affectedRows } = await run(statement, values);
      if (affectedRows !== targets.length) return false;
      const times = known ? new Map(targets.map((user, i) => [user.id, remembered[i]!])) : (read = await creationTimes(run, targets.map((user) => user.id)));
      await recordBatch(run, changes.map((change) => written('user.updated', change.id, change, times.get(change.id) ?? null)));
      return true;
    });
    if (!done && known) this.times.forget(targets.map((user) => user.id));
    if (read) for (const [id, time] of read) this.times.note(id, time);
    return done;
  }

  updateOne(user: UserUpdate, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.updateUser, [user.name, user.email, user.id], (run) => recordUpdate(run, user));
  }

  remove(id: number, origin: ChangeOrigin | undefined, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.deleteUser, [id], (run) => recordBatch(run, [deleted(id, origin)]));
  }

  updateIfTag(user: UserUpdate, hash: string, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.updateUserIfTag, [user.name, user.email, user.id, hash], (run) => recordUpdate(run, user));
  }

  removeIfTag(id: number, hash: string, origin: ChangeOrigin | undefined, deadline: Deadline): Promise<boolean> {
    return this.ifFound(deadline, sql.deleteUserIfTag, [id, hash], (run) => recordBatch(run, [deleted(id, origin)]));
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

function written(type: EventType, userId: number, change: NewUser, createdAt: string | null): RecordedChange {
  return { type, userId, name: change.name, email: change.email, createdAt, requestId: change.requestId ?? null, traceparent: change.traceparent ?? null };
}

function deleted(userId: number, origin: ChangeOrigin | undefined): RecordedChange {
  return { type: 'user.deleted', userId, name: null, email: null, createdAt: null, requestId: origin?.requestId ?? null, traceparent: origin?.traceparent ?? null };
}

/** A replaced user's event: its creation time as the caller read it, or as the row holds it. */
async function recordUpdate(run: StatementRunner, user: UserUpdate): Promise<void> {
  if (user.createdAt === undefined) return recordReplaced(run, [user]);
  await recordBatch(run, [written('user.updated', user.id, user, user.createdAt)]);
}

/** The events of users this transaction replaced (every one found), their creation times read by the same statement. */
async function recordReplaced(run: StatementRunner, changes: readonly UserUpdate[]): Promise<void> {
  const values: unknown[] = [changes.length];
  changes.forEach((change, i) => values.push(i, 'user.updated', change.id, change.name, change.email, change.requestId ?? null, change.traceparent ?? null));
  const { affectedRows } = await run(eventSql.recordReplaced(changes.length), values);
  if (affectedRows !== 1) throw new StorageError(new Error(`recorded ${affectedRows} event rows for a batch of ${changes.length} changes`));
}

/** The users' creation times, by id, as the rows hold them. */
async function creationTimes(run: StatementRunner, ids: readonly number[]): Promise<Map<number, string | null>> {
  const rows = await run<Array<{ id: number; created_at: string | null }>>(sql.creationTimes(paddedSize(ids.length)), padded(ids));
  return new Map(rows.map((row) => [row.id, row.created_at]));
}

async function recordBatch(run: StatementRunner, changes: readonly RecordedChange[]): Promise<void> {
  await run(eventSql.recordBatch, [changes.length, encodeBatch(changes)]);
}
