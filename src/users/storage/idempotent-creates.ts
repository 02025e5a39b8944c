import type { Database, StatementRunner } from '../../db/database.js';
import type { Deadline } from '../../db/deadline.js';
import { isDuplicateKey } from '../../db/mysql-errors.js';
import { sql } from '../../db/statements.js';
import { causeOf, StorageError } from '../../errors/storage-error.js';
import type { NewUser, UserWrites } from './user-writes.js';
import { scopeOf } from '../../tracing/span-scope.js';

/** The answer a key was first given, as stored and replayed. */
export interface KeptAnswer {
  status: number;
  body: string;
  location: string | null;
}

export type KeyedOutcome =
  | { kind: 'created' | 'replayed'; answer: KeptAnswer }
  /** The key's first request is still being answered (in this process). */
  | { kind: 'in-flight' }
  /** The key was first used with another body. */
  | { kind: 'reused' };

/** The key was recorded meanwhile, by another request: its transaction is rolled back, the record read. */
class KeyTaken extends Error {}

/** A first attempt of unknown outcome, a second that met the first's key, and a third that reads it. */
const MAX_ATTEMPTS = 3;

/** How often expired keys are looked for, at most: by the keyed creates themselves, so nothing runs without them. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Creates under an Idempotency-Key (IDEMPOTENCY=on): the key's record (a hash of the request and
 * the answer) is written in the create's own transaction, so one exists exactly when the other
 * does, whatever worker, instance or node answers a retry. A key already recorded within the
 * retention gets its first answer again, or `reused` for another body. When a create's outcome is
 * unknown (its node left the cluster during the commit) it runs again: if the first attempt did
 * commit, the key's primary key refuses the second (on any node: Galera certifies it), whose
 * answer is then the first's. A second request with a key whose first is still running in this
 * process is `in-flight`; elsewhere it waits for the first's row lock, then gets its answer.
 */
export class IdempotentCreates {
  private readonly running = new Set<string>();
  private lastPruned = -Infinity;

  constructor(
    private readonly db: Database,
    private readonly writes: UserWrites,
    private readonly ttlSeconds: number,
  ) {}

  async create(key: string, requestHash: Buffer, user: NewUser, answerFor: (id: number) => KeptAnswer): Promise<KeyedOutcome> {
    if (this.running.has(key)) return { kind: 'in-flight' };
    this.running.add(key);
    try {
      return await this.createOnce(key, requestHash, user, answerFor, this.db.deadlineSince(performance.now(), scopeOf([user.span])));
    } finally {
      this.running.delete(key);
      this.pruneNowAndThen();
    }
  }

  private async createOnce(key: string, requestHash: Buffer, user: NewUser, answerFor: (id: number) => KeptAnswer, deadline: Deadline): Promise<KeyedOutcome> {
    for (let attempt = 1; ; attempt++) {
      const kept = await this.kept(key, deadline);
      if (kept) return kept.requestHash.equals(requestHash) ? { kind: 'replayed', answer: kept.answer } : { kind: 'reused' };
      let answer: KeptAnswer | undefined;
      try {
        await this.writes.createWith(user, deadline, async (run, id) => {
          answer = answerFor(id);
          await run(sql.dropExpiredIdempotencyKey, [key, this.ttlSeconds]);
          await recordKey(run, key, requestHash, answer);
        });
        return { kind: 'created', answer: answer! };
      } catch (error) {
        // Either way the key's record now says what happened: read it (a few times at most).
        const lookAgain = causeOf(error) instanceof KeyTaken || isUnknownOutcome(error);
        if (!lookAgain || attempt === MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async kept(key: string, deadline: Deadline): Promise<{ requestHash: Buffer; answer: KeptAnswer } | undefined> {
    const rows = await this.db.read<Array<{ request_hash: Buffer; status: number; body: string; location: string | null }>>(
      sql.idempotencyRecord,
      [key, this.ttlSeconds],
      deadline,
    );
    const row = rows[0];
    return row && { requestHash: row.request_hash, answer: { status: row.status, body: row.body, location: row.location } };
  }

  /** Expired keys are deleted in bounded steps, at most once a minute per process, after a keyed create. */
  private pruneNowAndThen(): void {
    const now = performance.now();
    if (now - this.lastPruned < PRUNE_EVERY_MS) return;
    this.lastPruned = now;
    this.db.write(sql.pruneIdempotencyKeys, [this.ttlSeconds]).catch(() => {});
  }
}

async function recordKey(run: StatementRunner, key: string, requestHash: Buffer, answer: KeptAnswer): Promise<void> {
  try {
    await run(sql.recordIdempotencyKey, [key, requestHash, answer.status, answer.body, answer.location]);
  } catch (error) {
    throw isDuplicateKey(error) ? new KeyTaken() : error;
  }
}

function isUnknownOutcome(error: unknown): boolean {
  return error instanceof StorageError && error.kind === 'unknown outcome';
}
