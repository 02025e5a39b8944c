/**
 * What the clients saw, as the checkers read it: every operation with when it was sent and
 * answered (ms on one clock) and its outcome. `ok` is acknowledged; `failed` definitely changed
 * nothing (a 4xx, or a 503 the service sends before touching data); `unknown` may or may not have
 * happened (a 500, a timeout, a broken connection).
 */
export type Outcome = 'ok' | 'failed' | 'unknown';

/** A user's fields as written and read; the values written are unique in a run. */
export interface UserValue {
  name: string;
  email: string;
}

export type OpKind = 'create' | 'put' | 'cas-put' | 'cas-patch' | 'delete' | 'read' | 'list';

export interface Op {
  /** Unique in the history; also the X-Request-Id sent (with the run's prefix). */
  id: number;
  requestId: string;
  kind: OpKind;
  /** The service instance it went through (0 or 1). */
  instance: number;
  sent: number;
  /** Undefined when no answer came (timeout, connection error). */
  answered?: number;
  status?: number;
  outcome: Outcome;
  userId?: number;
  /** create: the unique marker in its name and email, by which a stored user is traced to its POST. */
  marker?: string;
  /** create, put, cas-put, cas-patch: the value it writes (cas-patch: the name with the email it expects). */
  value?: UserValue;
  /** cas-put, cas-patch: the value whose ETag was sent in If-Match. */
  expected?: UserValue;
  etag?: string;
  /** read: what it returned (null: 404); list: the users of the page. */
  read?: UserValue | null;
  page?: Array<UserValue & { id: number }>;
}

/** One anomaly: a broken promise, named by the checker that found it. */
export interface Anomaly {
  checker: string;
  message: string;
  ops?: number[];
}

/** The final state of one node: every user of the run, by id. */
export type NodeState = Map<number, UserValue>;

export const isWrite = (op: Op): boolean => op.kind === 'create' || op.kind === 'put' || op.kind === 'cas-put' || op.kind === 'cas-patch' || op.kind === 'delete';

/** The ops of each user: those naming it, and the list pages showing it (creates without a known id belong to no user). */
export function byUser(history: Op[]): Map<number, Op[]> {
  const users = new Map<number, Op[]>();
  const add = (userId: number, op: Op): void => {
    const ops = users.get(userId) ?? [];
    ops.push(op);
    users.set(userId, ops);
  };
  for (const op of history) {
    if (op.kind === 'list') for (const user of op.page ?? []) add(user.id, op);
    else if (op.userId !== undefined) add(op.userId, op);
  }
  return users;
}

export const sameValue = (a: UserValue | null | undefined, b: UserValue | null | undefined): boolean =>
  a === b || (a != null && b != null && a.name === b.name && a.email === b.email);

/** What a write leaves: its value, or null for a delete. */
export const effectOf = (op: Op): UserValue | null => (op.kind === 'delete' ? null : op.value!);

/** b may have taken effect after a: it was not answered before a was sent. */
export const mayFollow = (b: Op, a: Op): boolean => b.answered === undefined || b.answered > a.sent;
