import type { ConnectionSource } from '../../db/connection-source.js';
import { Database } from '../../db/database.js';
import type { Deadline } from '../../db/deadline.js';
import type { StopSignal } from '../../db/stop-signal.js';
import { defaultTuning, type PoolTuning } from '../../db/pool-tuning.js';
import { sql } from '../../db/statements.js';
import type { Change, WriteOutcome } from './conditional-writes.js';
import { EmailLookups } from './email-lookups.js';
import type { UserPage } from './page-read.js';
import type { StoreObserver } from './store-observer.js';
import { UserList, type ListTurn, type StreamedList } from './user-list.js';
import { PlainWrites } from './plain-writes.js';
import { counted } from './observed-operations.js';
import { IdempotentCreates, type KeptAnswer, type KeyedOutcome } from './idempotent-creates.js';
import { RecordedWrites, type EventRecording } from './recorded-writes.js';
import { UserRecords } from './user-records.js';
import type { TagCondition } from '../rules/etag.js';
import type { ListFilter, ListPage, ListRequest } from '../rules/list-query.js';
import type { UserRow } from '../rules/user.js';
import type { ChangeOrigin, NewUser } from './user-writes.js';
import { emailConflict } from './user-records.js';
import type { SpanContext } from '../../tracing/trace-context.js';

/**
 * The users table on one set of connections: single users (UserRecords) and the list (UserList),
 * behind the one object app.ts builds and the routes use. Every failure is a StorageError.
 */
export class UserStore {
  private readonly db: Database;
  private readonly records: UserRecords;
  private readonly list: UserList;
  private readonly emails: EmailLookups;
  private readonly keyed: IdempotentCreates | undefined;
  private readonly observer: StoreObserver | undefined;

  /**
   * With `events` (EVENTS=on) every change writes its events in its own transaction, and
   * `events.committed` is told after each commit that recorded some. With `idempotencyTtlSeconds`
   * (IDEMPOTENCY=on) creates may carry an Idempotency-Key (createOnce).
   */
  constructor(pool: ConnectionSource, tuning: PoolTuning = defaultTuning, observer?: StoreObserver, events?: EventRecording, idempotencyTtlSeconds?: number) {
    this.db = new Database(pool, tuning.operationTimeoutMs, tuning.trustAnsweredWithinMs);
    const writes = events ? new RecordedWrites(this.db, events.committed) : new PlainWrites(this.db);
    this.observer = observer;
    this.records = new UserRecords(this.db, writes, tuning, observer);
    this.list = new UserList(this.db, tuning, observer);
    this.emails = new EmailLookups(this.db, tuning, observer);
    this.keyed = idempotencyTtlSeconds === undefined ? undefined : new IdempotentCreates(this.db, writes, idempotencyTtlSeconds);
  }

  /** `span`: the asking request's, which the read's statement belongs to. */
  get(id: number, span?: SpanContext): Promise<UserRow | undefined> {
    return this.records.get(id, span);
  }

  /** The new user's id. `origin` names the request in the change's event. */
  create(name: string, email: string, origin?: ChangeOrigin): Promise<number> {
    // Every user object of one shape, its fields set one by one: a spread of `origin` cost 3% of a create's CPU.
    return this.records.create({ name, email, requestId: origin?.requestId, traceparent: origin?.traceparent, span: origin?.span });
  }

  /**
   * A create under an Idempotency-Key (see IdempotentCreates): `answerFor` is the answer a new user
   * gets, kept with the key. Without IDEMPOTENCY=on, a plain create whose answer is never kept.
   */
  async createOnce(key: string, requestHash: Buffer, user: NewUser, answerFor: (id: number) => KeptAnswer): Promise<KeyedOutcome> {
    if (!this.keyed) return { kind: 'created', answer: answerFor(await this.records.create(user)) };
    return counted(this.observer, 'create', this.keyed.create(key, requestHash, user, answerFor).catch(emailConflict));
  }

  /** False when no user has the id. */
  update(id: number, name: string, email: string, origin?: ChangeOrigin): Promise<boolean> {
    return this.records.update({ id, name, email, requestId: origin?.requestId, traceparent: origin?.traceparent, span: origin?.span });
  }

  /** False when no user has the id. */
  remove(id: number, origin?: ChangeOrigin): Promise<boolean> {
    return this.records.remove(id, origin);
  }

  /** A write that depends on the user's current version (see ConditionalWrites). */
  writeIf(id: number, change: Change, precondition: TagCondition | undefined, origin?: ChangeOrigin): Promise<WriteOutcome> {
    return this.records.writeIf(id, change, precondition, origin);
  }

  /** See UserList.turn. */
  listTurn(span?: SpanContext): Promise<ListTurn> {
    return this.list.turn(span);
  }

  /** See UserList.stream. */
  streamList(deadline: Deadline, clientGone: StopSignal): Promise<StreamedList> {
    return this.list.stream(deadline, clientGone);
  }

  /** See UserList.page. */
  page(request: ListRequest & { page: ListPage }, span?: SpanContext): Promise<UserPage> {
    return this.list.page(request, span);
  }

  /** See UserList.find. */
  find(request: ListRequest, clientGone: StopSignal, span?: SpanContext): Promise<StreamedList> {
    return this.list.find(request, clientGone, span);
  }

  /** See EmailLookups.find. */
  lookUpEmail(email: string, span?: SpanContext): Promise<Buffer | undefined> {
    return this.emails.find(email, span);
  }

  /** How many users match the filter. */
  count(filter: ListFilter, span?: SpanContext): Promise<number> {
    return this.list.count(filter, span);
  }

  /** True when the database answers and the users table is usable. */
  answers(): Promise<boolean> {
    return this.db.read(sql.usersTableAnswers, []).then(
      () => true,
      () => false,
    );
  }
}
