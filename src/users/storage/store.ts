import { Batcher, paddedSize, type Pending, type RunBatch } from '../../db/batcher.js';
import type { ConnectionSource } from '../../db/connection-source.js';
import { Database, type RowStream } from '../../db/database.js';
import { isSyntaxError, wasRefusedByServer } from '../../db/mysql-errors.js';
import type { Deadline } from '../../db/deadline.js';
import { StorageError } from '../../errors/storage-error.js';
import { defaultTuning, type PoolTuning } from '../../db/pool-tuning.js';
import { sql } from '../../db/statements.js';
import { ConditionalWrites, type Change, type WriteOutcome } from './conditional-writes.js';
import type { TagCondition } from '../rules/etag.js';
import { UserListChunks } from './list-json.js';
import { readUserPage, type UserPage } from './page-read.js';
import type { UserRow } from '../rules/user.js';

/**
 * Either the shared list, or the go-ahead to stream it alone; a streaming caller must call
 * `release` once its list ends, fails, or has proved too large to share (more than one chunk).
 */
export type ListTurn = { body: Buffer } | { release: () => void; deadline: Deadline };

export interface ListSink {
  chunk(bytes: Buffer): void;
  end(rest: Buffer): void;
  fail(error: StorageError): void;
}

interface NewUser {
  name: string;
  email: string;
}

interface UserUpdate extends NewUser {
  id: number;
}

export type StoreOperation = 'read' | 'create' | 'update' | 'delete' | 'list';
export type OperationOutcome = 'ok' | 'error' | 'busy';

/** Told of every operation's outcome and of every coalesced batch's size (for the metrics). */
export interface StoreObserver {
  operation(kind: StoreOperation, outcome: OperationOutcome): void;
  batch(kind: StoreOperation, size: number): void;
}

/** The most operations one statement carries. */
const MAX_BATCH = 64;

/**
 * The users table. Concurrent reads by id, creates and updates are coalesced: each kind shares
 * statements and round trips while earlier batches are still running, and every caller still gets
 * its own answer. Every failure is a StorageError.
 */
export class UserStore {
  private readonly db: Database;
  private readonly reads: Batcher<number, UserRow | undefined>;
  private readonly creates: Batcher<NewUser, number>;
  /** False once the server has refused INSERT ... RETURNING (MySQL): creates then go one row at a time. */
  private insertReturns = true;
  private readonly updates: Batcher<UserUpdate, boolean>;
  private readonly lists: Batcher<void, ListTurn>;
  private readonly sharedListLimit: number;
  private readonly conditionalWrites: ConditionalWrites;

  constructor(
    pool: ConnectionSource,
    tuning: PoolTuning = defaultTuning,
    private readonly observer?: StoreObserver,
  ) {
    this.db = new Database(
      pool,
      tuning.operationTimeoutMs ?? defaultTuning.operationTimeoutMs,
      tuning.trustAnsweredWithinMs ?? defaultTuning.trustAnsweredWithinMs,
    );
    const inFlight = tuning.batchesInFlight ?? defaultTuning.batchesInFlight;
    const writesInFlight = tuning.writeBatchesInFlight ?? defaultTuning.writeBatchesInFlight;
    const waiting = tuning.queueLimit;
    this.reads = new Batcher(this.sized('read', (batch) => this.readBatch(batch)), inFlight, MAX_BATCH, waiting);
    this.creates = new Batcher(this.sized('create', (batch) => this.createBatch(batch)), writesInFlight, MAX_BATCH, waiting);
    this.updates = new Batcher(this.sized('update', (batch) => this.updateBatch(batch)), writesInFlight, MAX_BATCH, waiting);
    this.lists = new Batcher(this.sized('list', (batch) => this.listBatch(batch)), inFlight, MAX_BATCH, waiting);
    this.sharedListLimit = tuning.sharedListLimitBytes ?? defaultTuning.sharedListLimitBytes;
    this.conditionalWrites = new ConditionalWrites(this.db);
  }

  get(id: number): Promise<UserRow | undefined> {
    return this.counted('read', this.reads.submit(id));
  }

  /** The new user's id. */
  create(name: string, email: string): Promise<number> {
    return this.counted('create', this.creates.submit({ name, email }));
  }

  /** False when no user has the id. */
  update(id: number, name: string, email: string): Promise<boolean> {
    return this.counted('update', this.updates.submit({ id, name, email }));
  }

  /** False when no user has the id. */
  remove(id: number): Promise<boolean> {
    return this.counted('delete', this.db.write(sql.deleteUser, [id]).then((result) => result.affectedRows > 0));
  }

  /** A write that depends on the user's current version (see ConditionalWrites). */
  writeIf(id: number, change: Change, precondition: TagCondition | undefined): Promise<WriteOutcome> {
    return this.counted(change === 'remove' ? 'delete' : 'update', this.conditionalWrites.apply(id, change, precondition));
  }

  /** Up to `limit` users with an id above `after`, by id (see readUserPage). */
  page(after: number, limit: number): Promise<UserPage> {
    return this.counted('list', readUserPage(this.db, after, limit));
  }

  /** True when the database answers and the users table is usable. */
  answers(): Promise<boolean> {
    return this.db.read(sql.usersTableAnswers, []).then(
      () => true,
      () => false,
    );
  }

  /**
   * A listing's turn: the whole list as one JSON array, read once for every listing that arrived
   * together, when it is small; or the go-ahead to stream it alone (see ListTurn).
   */
  listTurn(): Promise<ListTurn> {
    // A shared list is complete here; a streamed one is counted when its stream ends.
    return this.counted('list', this.lists.submit(), (given) => 'body' in given);
  }

  /**
   * Every user in id order as one JSON array, streamed in chunks of about `chunkBytes`: the table is
   * never held in memory. `chunk` may pause the stream (backpressure); `end` brings the last bytes.
   */
  streamList(sink: ListSink, deadline: Deadline, chunkBytes?: number): RowStream {
    const observer = this.observer;
    if (!observer) return this.streamChunks(sink, deadline, chunkBytes);
    return this.streamChunks({
      chunk: (bytes) => sink.chunk(bytes),
      end(rest) {
        observer.operation('list', 'ok');
        sink.end(rest);
      },
      fail(error) {
        observer.operation('list', outcomeOf(error));
        sink.fail(error);
      },
    }, deadline, chunkBytes);
  }

  private streamChunks(sink: ListSink, deadline: Deadline, chunkBytes?: number): RowStream {
    const list = new UserListChunks(chunkBytes);
    let broken = false;
    const stream = this.db.stream<{ json: Buffer }>(sql.listUsersAsJson, {
      row(row) {
        if (broken) return;
        let chunk: Buffer | undefined;
        try {
          chunk = list.add(row.json);
        } catch (error) {
          broken = true;
          stream.abort();
          return sink.fail(new StorageError(error));
        }
        if (chunk) sink.chunk(chunk);
      },
      end: () => sink.end(list.end()),
      fail: (error) => sink.fail(error),
    }, deadline);
    return stream;
  }

  /**
   * One read serves the whole batch: it starts after every listing in it arrived, so each sees every
   * write acknowledged before it asked. Past the limit the read is dropped and each streams alone,
   * so a large table is never buffered and no slow reader holds back another.
   */
  private async listBatch(batch: ReadonlyArray<Pending<void, ListTurn>>): Promise<void> {
    const deadline = this.deadlineOf(batch);
    if (batch.length === 1) {
      // Alone: it streams, holding this batch's place until its list proves large or ends, so
      // listings that arrive meanwhile gather into the next batch.
      await new Promise<void>((release) => batch[0]!.resolve({ release, deadline }));
      return;
    }
    const body = await this.readListUpTo(this.sharedListLimit, deadline);
    for (const pending of batch) {
      // Too large to share: each streams its own, with the budget it has left.
      pending.resolve(body === undefined ? { release: () => {}, deadline: this.db.deadlineSince(pending.since) } : { body });
    }
  }

  /** The whole list, or undefined as soon as it proves larger than `limitBytes`. */
  private readListUpTo(limitBytes: number, deadline: Deadline): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) => {
      const stream = this.streamChunks({
        chunk() {
          stream.abort();
          resolve(undefined);
        },
        end: resolve,
        fail: reject,
      }, deadline, limitBytes);
    });
  }

  /**
   * A batch runs on the budget of its oldest operation, counted from when that was asked for: time
   * spent waiting behind earlier batches is part of it, so every request is still answered in time.
   */
  private deadlineOf(batch: ReadonlyArray<Pending<unknown, unknown>>): Deadline {
    return this.db.deadlineSince(batch[0]!.since);
  }

  /**
   * The operation's outcome goes to the observer (a success only when `complete` says it is over);
   * without an observer the promise is returned as it is.
   */
  private counted<T>(kind: StoreOperation, pending: Promise<T>, complete: (value: T) => boolean = () => true): Promise<T> {
    const observer = this.observer;
    if (!observer) return pending;
    return pending.then(
      (value) => {
        if (complete(value)) observer.operation(kind, 'ok');
        return value;
      },
      (error: unknown) => {
        observer.operation(kind, outcomeOf(error));
        throw error;
      },
    );
  }

  /** A batch runner that first tells the observer the batch's size. */
  private sized<I, R>(kind: StoreOperation, run: RunBatch<I, R>): RunBatch<I, R> {
    const observer = this.observer;
    if (!observer) return run;
    return (batch) => {
      observer.batch(kind, batch.length);
      return run(batch);
    };
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
   * refuses it, nothing was stored, so each row is tried alone (its id is the statement's insert id)
   * and only the culprit fails; a server without RETURNING (MySQL) refuses it as a syntax error and
   * gets single inserts from then on. If the outcome is unknown (connection lost, timeout), every
   * caller is told it failed: none is told a success that was not confirmed.
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
   * One UPDATE replaces every user of the batch; for duplicates within a batch the latest request
   * wins, as if they ran in arrival order. When it finds as many rows as there are ids, every id
   * existed. Otherwise each id is updated alone to learn which did: a row already updated is
   * written again with the same values, which is what a client's retry of an idempotent PUT does.
   */
  private async updateBatch(batch: ReadonlyArray<Pending<UserUpdate, boolean>>): Promise<void> {
    const latest = new Map(batch.map(({ item }) => [item.id, item]));
    const found = await this.updateExisting([...latest.values()], this.deadlineOf(batch));
    for (const pending of batch) pending.resolve(found.has(pending.item.id));
  }

  /** The ids of `targets` that exist, each now holding its new values. */
  private async updateExisting(targets: UserUpdate[], deadline: Deadline): Promise<Set<number>> {
    if (targets.length > 1) {
      const rows = padded(targets);
      const values = [
        ...rows.flatMap((user) => [user.id, user.name]),
        ...rows.flatMap((user) => [user.id, user.email]),
        ...rows.map((user) => user.id),
      ];
      const result = await this.db.write(sql.updateUsers(rows.length), values, deadline);
      if (result.affectedRows === targets.length) return new Set(targets.map((user) => user.id));
    }
    const found = await Promise.all(
      targets.map(({ id, name, email }) =>
        this.db.write(sql.updateUser, [name, email, id], deadline).then((result) => result.affectedRows > 0),
      ),
    );
    return new Set(targets.filter((_, i) => found[i]).map((user) => user.id));
  }
}

/** A failure as the metrics count it: turned away because too much waits, or anything else. */
function outcomeOf(error: unknown): OperationOutcome {
  return error instanceof StorageError && error.kind === 'busy' ? 'busy' : 'error';
}

/** The items, the last one repeated up to the next power of two (harmless in IN lists and CASEs). */
function padded<T>(items: T[]): T[] {
  const size = paddedSize(items.length);
  const result = items.slice();
  while (result.length < size) result.push(items[items.length - 1]!);
  return result;
}
