import assert from 'node:assert/strict';
import { Database } from '../../../src/db/database.js';
import { UserStore } from '../../../src/users/storage/store.js';
import type { TestDatabase } from '../../helpers/database.js';
import type { ApiResponse } from '../../helpers/http.js';
import { waitUntil } from '../../helpers/poll-until.js';
import type { RunningService } from '../../helpers/service.js';
import { lockUsersTable, sessionsWaitingForLock } from '../../robustness/helpers/db-sessions.js';

/** The unique email index, which the start builds when UNIQUE_EMAIL is on, is in place. */
export async function assertUniqueEmailIndex(db: TestDatabase): Promise<void> {
  const rows = await db.query<Array<{ non_unique: number }>>(
    "SELECT non_unique FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'users' AND index_name = 'users_email_unique'",
  );
  assert.deepEqual(rows.map((row) => Number(row.non_unique)), [0], 'users_email_unique, a unique index on email');
}

/** How many users have this email, compared as the unique index compares it (case-insensitively). */
export async function usersWithEmail(db: TestDatabase, email: string): Promise<number> {
  const [row] = await db.query<Array<{ count: number }>>('SELECT COUNT(*) AS count FROM users WHERE email = ?', [email]);
  return Number(row!.count);
}

export interface SentWrite {
  statement: string;
  values: unknown[];
}

export interface SharedBatch {
  /** The blocker's answer. */
  blocked: ApiResponse;
  /** The answers to `requests`, in their order. */
  answers: ApiResponse[];
  /** Every write statement the service sent while they ran, the blocker's included. */
  writes: SentWrite[];
}

/**
 * Runs `requests` (all creates, or all updates) so that they share one batch: the users table is
 * locked, `blocker` (a write of the same kind) is sent and held at the lock, which keeps the one
 * batch of that kind allowed in flight busy (writeBatchesInFlight is 1); `requests` are sent and
 * gather behind it until every one has reached the store; then the lock is released and they
 * leave together. The service runs in this process, so the statements it sends are recorded by
 * wrapping Database.prototype.write.
 */
export async function inOneBatch(
  service: RunningService,
  kind: 'create' | 'update',
  blocker: () => Promise<ApiResponse>,
  requests: Array<() => Promise<ApiResponse>>,
): Promise<SharedBatch> {
  const write = Database.prototype.write;
  // Typed loosely: create and update take different arguments, and both are only counted and passed on.
  const store = UserStore.prototype as unknown as Record<typeof kind, (...args: unknown[]) => unknown>;
  const submit = store[kind];
  const writes: SentWrite[] = [];
  let submitted = 0;
  Database.prototype.write = function (this: Database, ...args: Parameters<Database['write']>) {
    writes.push({ statement: args[0], values: args[1] });
    return write.apply(this, args);
  } as Database['write'];
  store[kind] = function (this: UserStore, ...args: unknown[]) {
    submitted++;
    return submit.apply(this, args);
  };
  const lock = await lockUsersTable(service.db.config);
  try {
    const held = blocker();
    await waitUntil('the blocking write to wait for the table lock', async () => (await sessionsWaitingForLock(service.db)).length > 0);
    const sent = requests.map((send) => send());
    await waitUntil(`all ${requests.length} writes to reach the store`, () => submitted === requests.length + 1);
    await lock.release();
    return { blocked: await held, answers: await Promise.all(sent), writes };
  } finally {
    await lock.release();
    Database.prototype.write = write;
    store[kind] = submit;
  }
}
