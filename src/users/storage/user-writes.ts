import type { UserRow } from '../rules/user.js';
import type { StatementRunner } from '../../db/database.js';
import type { Deadline } from '../../db/deadline.js';
import type { SpanContext } from '../../tracing/trace-context.js';

/**
 * The request that asked for a change, named in its event (its X-Request-Id and its span's
 * `traceparent`); its span is the one the change's statements belong to.
 */
export interface ChangeOrigin {
  requestId?: string;
  traceparent?: string;
  span?: SpanContext;
}

export interface NewUser extends ChangeOrigin {
  name: string;
  email: string;
}

export interface UserUpdate extends NewUser {
  id: number;
  /** The user's creation time, when the caller has just read it (a conditional write): its event then needs no read of it. */
  createdAt?: string | null;
}

/**
 * The statements that change users, as UserRecords and ConditionalWrites use them: written alone
 * (plain-writes.ts), or each in one transaction with its change events (recorded-writes.ts, EVENTS=on).
 * Each throws the server's refusal (a value too long, an email already taken) as it comes.
 */
export interface UserWrites {
  /** Told of users just read by id (recorded writes remember their creation times). */
  seen?(rows: readonly UserRow[]): void;
  /** One statement stores every user or none; their ids in the order given (MariaDB's INSERT ... RETURNING). */
  createAll(users: readonly NewUser[], deadline: Deadline): Promise<number[]>;
  createOne(user: NewUser, deadline: Deadline): Promise<number>;
  /** createOne in a transaction that also runs `also` with the new id: both are committed, or neither. */
  createWith(user: NewUser, deadline: Deadline, also: (run: StatementRunner, id: number) => Promise<void>): Promise<number>;
  /**
   * Changes in arrival order, several of them maybe of one user: each user ends as its last change
   * leaves it, as if they ran in order (and with events each change is recorded). True when every
   * user was found and replaced by one statement; when it is false some were missing: the recorded
   * form then changed nothing, the plain one replaced those found.
   */
  updateAll(changes: readonly UserUpdate[], deadline: Deadline): Promise<boolean>;
  /** False when no user has the id. */
  updateOne(user: UserUpdate, deadline: Deadline): Promise<boolean>;
  /** False when no user has the id. */
  remove(id: number, origin: ChangeOrigin | undefined, deadline: Deadline): Promise<boolean>;
  /** Replaces the user only while its ETag hash is still `hash`; false when it is not (or the user is gone). */
  updateIfTag(user: UserUpdate, hash: string, deadline: Deadline): Promise<boolean>;
  /** Removes the user only while its ETag hash is still `hash`. */
  removeIfTag(id: number, hash: string, origin: ChangeOrigin | undefined, deadline: Deadline): Promise<boolean>;
}
