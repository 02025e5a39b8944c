import type { Database } from '../../db/database.js';
import { sql } from '../../db/statements.js';
import type { ChangeOrigin, UserWrites } from './user-writes.js';
import { scopeOf } from '../../tracing/span-scope.js';
import { etagHash, etagOf, quotedTag, tagMatches, type TagCondition } from '../rules/etag.js';
import type { UserRow } from '../rules/user.js';

/** The fields a write replaces (both for PUT, one or both for PATCH), or the user's removal. */
export type Change = { name?: string; email?: string } | 'remove';

export type WriteOutcome =
  | { kind: 'done'; /** The user's new ETag; none after a removal. */ etag?: string }
  | { kind: 'not-found' }
  | { kind: 'precondition-failed' };

const NOT_FOUND: WriteOutcome = { kind: 'not-found' };
const PRECONDITION_FAILED: WriteOutcome = { kind: 'precondition-failed' };

/**
 * Writes that depend on the user's current version: those with If-Match, and partial updates
 * (which must merge with what is stored and report the resulting ETag). Each attempt reads the
 * user, decides 404 or 412 on that read, then writes with a statement that applies only while
 * the row still has the ETag just read: a concurrent change in between makes it find no row, and
 * the decision is taken again on the new version. So no write ever lands on a version its
 * precondition did not accept, and the ETag reported is exactly that of the row written.
 * These bypass batching: they are rare, and each needs its own answer from its own statement.
 */
export class ConditionalWrites {
  constructor(
    private readonly db: Database,
    private readonly writes: UserWrites,
  ) {}

  async apply(id: number, change: Change, precondition: TagCondition | undefined, origin?: ChangeOrigin): Promise<WriteOutcome> {
    const deadline = this.db.deadlineSince(performance.now(), scopeOf([origin?.span]));
    for (;;) {
      const [row] = await this.db.read<UserRow[]>(sql.getUser, [id], deadline);
      if (!row) return NOT_FOUND;
      const current = etagHash(row);
      if (precondition && !tagMatches(precondition, quotedTag(current))) return PRECONDITION_FAILED;
      if (change === 'remove') {
        if (await this.writes.removeIfTag(id, current, origin, deadline)) return { kind: 'done' };
      } else {
        const next: UserRow = { ...row, name: change.name ?? row.name, email: change.email ?? row.email };
        const user = { id, name: next.name, email: next.email, createdAt: row.created_at, requestId: origin?.requestId, traceparent: origin?.traceparent, span: origin?.span };
        if (await this.writes.updateIfTag(user, current, deadline)) return { kind: 'done', etag: etagOf(next) };
      }
      // The user changed or went between the read and the write: decide again on what is stored now.
    }
  }
}
