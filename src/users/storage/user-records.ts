import { Batcher, padded, paddedSize, type Pending } from '../../db/batcher.js';
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
import type { ChangeOrigin, NewUser, UserUpdate, UserWrites } from './user-writes.js';
import { scopeOf } from '../../tracing/span-scope.js';
import type { SpanContext } from '../../tracing/trace-context.js';


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
    private readonly writes: UserWrites,
    tuning: PoolTuning,
    private readonly observer?: StoreObserver,
  ) {
    const inFlight = tuning.batchesInFlight;
    const writesInFlight = tuning.writeBatchesInFlight;
    const waiting = tuning.queueLimit;
    this.reads = new Batcher(sized(observer, 'read', (batch) => this.readBatch(batch)), inFlight, MAX_BATCH, waiting);
    this.creates = new Batcher(sized(observer, 'create', (batch) => this.createBatch(batch)), writesInFlight, MAX_BATCH, waiting);
    this.updates = new Batcher(sized(observer, 'update', (batch) => this.updateBatch(batch)), writesInFlight, MAX_BATCH, waiting);
    this.conditionalWrites = new ConditionalWrites(db, writes);
  }

  /** `span`: the asking request's, which the read's statement belongs to. */
  get(id: number, span?: SpanContext): Promise<UserRow | undefined> {
    return counted(this.observer, 'read', this.reads.submit(id, span));
  }

  /** The new user's id. */
  create(user: NewUser): Promise<number> {
    return counted(this.observer, 'create', this.creates.submit(user, user.span).catch(emailConflict));
  }

  /** False when no user has the id. */
  update(user: UserUpdate): Promise<boolean> {
    return counted(this.observer, 'update', this.updates.submit(user, user.span).catch(emailConflict));
  }

  /** False when no user has the id. */
  remove(id: number, origin?: ChangeOrigin): Promise<boolean> {
    return counted(this.observer, 'delete', this.writes.remove(id, origin, this.db.deadlineSince(performance.now(), scopeOf([origin?.span]))));
  }

  /** A write that depends on the user's current version (see ConditionalWrites). */
  writeIf(id: number, change: Change, precondition: TagCondition | undefined, origin?: ChangeOrigin): Promise<WriteOutcome> {
    const outcome = this.conditionalWrites.apply(id, change, precondition, origin);
    return counted(this.observer, change === 'remove' ? 'delete' : 'update', outcome.catch(emailConflict));
  }

  /**
   * A batch runs on the budget of its oldest operation, counted from when that was asked for: time
   * spent waiting behind earlier batches is part of it, so every request is still answered in time.
   */
  private deadlineOf(batch: ReadonlyArray<Pending<unknown, unknown>>): Deadline {
    return this.db.deadlineSince(batch[0]!.since, scopeOf(batch.map((pending) => pending.span)));
  }

  private async readBatch(batch: ReadonlyArray<Pending<number, UserRow | undefined>>): Promise<void> {
    const deadline = this.deadlineOf(batch);
    const ids = [...new Set(batch.map((pending) => pending.item))];
    const rows =
      ids.length === 1
        ? await this.db.read<UserRow[]>(sql.getUser, ids, deadline)
        : await this.db.read<UserRow[]>(sql.getUsers(paddedSize(ids.length)), padded(ids), deadline);
    this.writes.seen?.(rows);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const pending of batch) pending.resolve(byId.get(pending.item));
  }

  /**
   * One multi-row INSERT: all rows are stored or none, and RETURNING gives each row's id in the
   * order of its values, whatever auto-increment step or lock mode the server uses. If the server
   * refuses it (a value too long, an email already taken), nothing was stored, so each row is tried
   * alone (its id is the statement's insert id) and only the culprits fail; a server without
   * RETURNING (MySQL) refuses it as a syntax error and gets single inserts from then on. If the
   * outcome is unknown (connection lost, timeout, or an error a Galera node gives when it leaves the
   * cluster during the commit: mysql-errors.ts), every caller is told it failed and no row is sent
   * again: the batch may be committed on the other nodes, and a second run would store it twice.
   */
  private async createBatch(batch: ReadonlyArray<Pending<NewUser, number>>): Promise<void> {
    const deadline = this.deadlineOf(batch);
    if (batch.length > 1 && this.insertReturns) {
      try {
        const ids = await this.writes.createAll(batch.map(({ item }) => item), deadline);
        batch.forEach((pending, i) => pending.resolve(ids[i]!));
        return;
      } catch (error) {
        if (!wasRefusedByServer(error)) throw error;
        if (isSyntaxError(error)) this.insertReturns = false;
      }
    }
    await Promise.all(
      batch.map(({ item, resolve, reject }) => this.writes.createOne(item, deadline).then(resolve, reject)),
    );
  }

  /**
   * One UPDATE replaces every user of the batch; for a user asked for twice the latest request wins,
   * as if they ran in arrival order (with events, each request still records its own event). When
   * it finds as many rows as there are users, every id existed. Otherwise, or if the server refused
   * it (an email already taken: nothing changed), each request is written alone, in arrival order,
   * so each caller learns its own outcome and only the culprits fail. A row the shared statement
   * already updated (without events) is written again with the same values, which is what a
   * client's retry of an idempotent PUT does.
   */
  private async updateBatch(batch: ReadonlyArray<Pending<UserUpdate, boolean>>): Promise<void> {
    const deadline = this.deadlineOf(batch);
    if (batch.length > 1) {
      try {
        if (await this.writes.updateAll(batch.map(({ item }) => item), deadline)) {
          for (const pending of batch) pending.resolve(true);
          return;
        }
      } catch (error) {
        if (!wasRefusedByServer(error)) throw error;
      }
    }
    await this.updateEachAlone(batch, deadline);
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
          await this.writes.updateOne(item, deadline).then(resolve, reject);
        }
      }),
    );
  }
}

/**
 * A refused write's failure as the routes see it: a duplicate key is an email another user has,
 * since users_email_unique is the only unique key besides the id, which no write sets.
 */
export function emailConflict(error: unknown): never {
  throw error instanceof StorageError && error.kind === 'duplicate' ? new ConflictError(messages.emailInUse) : error;
}
