import { Batcher, paddedSize, type Pending } from '../../db/batcher.js';
import type { Database } from '../../db/database.js';
import { isSyntaxError, wasRefusedByServer } from '../../db/mysql-errors.js';
import type { Deadline } from '../../db/deadline.js';
import { ConflictError } from '../../errors/conflict-error.js';
import { messages } from '../../errors/messages.js';
import { StorageError } from '../../errors/storage-error.js';
import type { PoolTuning } from '../../db/pool-tuning.js';
import { sql } from '../../db/statements.js';
import { ConditionalWrites, type Change, type WriteOutcome } from './conditional-writes.js';
import { counted, sized } from './observed-operations.js';
import type { StoreObserver } from './store-observer.js';
import type { TagCondition } from '../rules/etag.js';
import type { UserRow } from '../rules/user.js';

interface NewUser {
  name: string;
  email: string;
}

interface UserUpdate extends NewUser {
  id: number;
}

/** The most operations one statement carries. */
const MAX_BATCH = 64;

/**
 * Users one at a time: read by id, created, updated, deleted. Concurrent reads by id, creates and
 * updates are coalesced: each kind shares statements and round trips while earlier batches are
 * still running, and every caller still gets its own answer. A write that would give a user an
 * email another user has (UNIQUE_EMAIL's unique index) fails with a ConflictError; every other
 * failure is a StorageError.
 */
export class UserRecords {
  private readonly reads: Batcher<number, UserRow | undefined>;
  private readonly creates: Batcher<NewUser, number>;
  /** False once the server has refused INSERT ... RETURNING (MySQL): creates then go one row at a time. */
  private insertReturns = true;
  private readonly updates: Batcher<UserUpdate, boolean>;
  private readonly conditionalWrites: ConditionalWrites;

  constructor(
    private readonly db: Database,
    tuning: PoolTuning,
    private readonly observer?: StoreObserver,
  ) {
    const inFlight = tuning.batchesInFlight;
    const writesInFlight = tuning.writeBatchesInFlight;
    const waiting = tuning.queueLimit;
    this.reads = new Batcher(sized(observer, 'read', (batch) => this.readBatch(batch)), inFlight, MAX_BATCH, waiting);
    this.creates = new Batcher(sized(observer, 'create', (batch) => this.createBatch(batch)), writesInFlight, MAX_BATCH, waiting);
    this.updates = new Batcher(sized(observer, 'update', (batch) => this.updateBatch(batch)), writesInFlight, MAX_BATCH, waiting);
    this.conditionalWrites = new ConditionalWrites(db);
  }

  get(id: number): Promise<UserRow | undefined> {
    return counted(this.observer, 'read', this.reads.submit(id));
  }

  /** The new user's id. */
  create(name: string, email: string): Promise<number> {
    return counted(this.observer, 'create', this.creates.submit({ name, email }).catch(emailConflict));
  }

  /** False when no user has the id. */
  update(id: number, name: string, email: string): Promise<boolean> {
    return counted(this.observer, 'update', this.updates.submit({ id, name, email }).catch(emailConflict));
  }

  /** False when no user has the id. */
  remove(id: number): Promise<boolean> {
    return counted(this.observer, 'delete', this.db.write(sql.deleteUser, [id]).then((result) => result.affectedRows > 0));
  }

  /** A write that depends on the user's current version (see ConditionalWrites). */
  writeIf(id: number, change: Change, precondition: TagCondition | undefined): Promise<WriteOutcome> {
    return counted(this.observer, change === 'remove' ? 'delete' : 'update', this.conditionalWrites.apply(id, change, precondition).catch(emailConflict));
  }

  /**
   * A batch runs on the budget of its oldest operation, counted from when that was asked for: time
   * spent waiting behind earlier batches is part of it, so every request is still answered in time.
   */
  private deadlineOf(batch: ReadonlyArray<Pending<unknown, unknown>>): Deadline {
    return this.db.deadlineSince(batch[0]!.since);
  }

  private async readBatch(batch: ReadonlyArray<Pending<number, UserRow | undefined>>): Promise<void> {
    const deadline = this.deadlineOf(batch);
    const ids = [...new Set(batch.map((pending) => pending.item))];
    const rows =
      ids.length === 1
        ? await this.db.read<UserRow[]>(sql.getUser, ids, deadline)
        : await this.db.read<UserRow[]>(sql.getUsers(paddedSize(ids.length)), padded(ids), deadline);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const pending of batch) pending.resolve(byId.get(pending.item));
  }

  /**
   * One multi-row INSERT: all rows are stored or none, and RETURNING gives each row's id in the
   * order of its values, whatever auto-increment step or lock mode the server uses. If the server
   * refuses it (a value too long, an email already taken), nothing was stored, so each row is tried
   * alone (its id is the statement's insert id) and only the culprits fail; a server without
   * RETURNING (MySQL) refuses it as a syntax error and gets single inserts from then on. If the
   * outcome is unknown (connection lost, timeout), every caller is told it failed: none is told a
   * success that was not confirmed.
   */
  private async createBatch(batch: ReadonlyArray<Pending<NewUser, number>>): Promise<void> {
    const deadline = this.deadlineOf(batch);
    if (batch.length > 1 && this.insertReturns) {
      try {
        const values = batch.flatMap(({ item }) => [item.name, item.email]);
        const rows = await this.db.write<Array<{ id: number }>>(sql.createUsers(batch.length), values, deadline);
        if (rows.length !== batch.length) throw new StorageError(new Error(`INSERT returned ${rows.length} ids for ${batch.length} rows`));
        batch.forEach((pending, i) => pending.resolve(rows[i]!.id));
        return;
      } catch (error) {
        if (!wasRefusedByServer(error)) throw error;
        if (isSyntaxError(error)) this.insertReturns = false;
      }
    }
    await Promise.all(
      batch.map(({ item, resolve, reject }) =>
        this.db.write(sql.createUser, [item.name, item.email], deadline).then((result) => resolve(result.insertId), reject),
      ),
    );
  }

  /**
   * One UPDATE replaces every user of the batch; for a user asked for twice in a batch the latest
   * request wins, as if they ran in arrival order. When it finds as many rows as there are ids, every id
   * existed. Otherwise, or if the server refused it (an email already taken: nothing changed), each
   * request is written alone, so each caller learns its own outcome and only the culprits fail. A
   * row the shared statement already updated is written again with the same values, which is what
   * a client's retry of an idempotent PUT does.
   */
  private async updateBatch(batch: ReadonlyArray<Pending<UserUpdate, boolean>>): Promise<void> {
    const deadline = this.deadlineOf(batch);
    const targets = [...new Map(batch.map(({ item }) => [item.id, item])).values()];
    if (targets.length > 1) {
      try {
        if (await this.updateTogether(targets, deadline)) {
          for (const pending of batch) pending.resolve(true);
          return;
        }
      } catch (error) {
        if (!wasRefusedByServer(error)) throw error;
      }
    }
    await this.updateEachAlone(batch, deadline);
  }

  /** True when one statement found every user of `targets`: each now holds its new values. */
  private async updateTogether(targets: UserUpdate[], deadline: Deadline): Promise<boolean> {
    const rows = padded(targets);
    const values = [
      ...rows.flatMap((user) => [user.id, user.name]),
      ...rows.flatMap((user) => [user.id, user.email]),
      ...rows.map((user) => user.id),
    ];
    const result = await this.db.write(sql.updateUsers(rows.length), values, deadline);
    return result.affectedRows === targets.length;
  }

  /** Each request its own statement (those for one user in arrival order, so the latest wins); each settles on its own. */
  private async updateEachAlone(batch: ReadonlyArray<Pending<UserUpdate, boolean>>, deadline: Deadline): Promise<void> {
    const byUser = new Map<number, Array<Pending<UserUpdate, boolean>>>();
    for (const pending of batch) {
      const requests = byUser.get(pending.item.id);
      if (requests) requests.push(pending);
      else byUser.set(pending.item.id, [pending]);
    }
    await Promise.all(
      [...byUser.values()].map(async (requests) => {
        for (const { item, resolve, reject } of requests) {
          await this.db.write(sql.updateUser, [item.name, item.email, item.id], deadline).then((result) => resolve(result.affectedRows > 0), reject);
        }
      }),
    );
  }
}

/**
 * A refused write's failure as the routes see it: a duplicate key is an email another user has,
 * since users_email_unique is the only unique key besides the id, which no write sets.
 */
function emailConflict(error: unknown): never {
  throw error instanceof StorageError && error.kind === 'duplicate' ? new ConflictError(messages.emailInUse) : error;
}

/** The items, the last one repeated up to the next power of two (harmless in IN lists and CASEs). */
function padded<T>(items: T[]): T[] {
  const size = paddedSize(items.length);
  const result = items.slice();
  while (result.length < size) result.push(items[items.length - 1]!);
  return result;
}
