/**
 * What a storage failure means to a client, without naming the database:
 * - `busy`: turned away because too much already waits; nothing was tried, and a retry soon may pass.
 * - `failed`: the statement changed nothing (refused, rolled back, or never sent).
 * - `unknown outcome`: a write whose answer was lost (connection cut, no answer in time): it may have landed.
 * - `duplicate`: a write refused because a unique key already holds one of its values; nothing changed.
 *   Not a fault: the layer that knows which key it is turns it into the client's conflict.
 */
export type StorageFailure = 'busy' | 'failed' | 'unknown outcome' | 'duplicate';

/**
 * The storage layer failed. Raised in src/db/ and src/users/storage/, answered in src/http/: it lives
 * here so that neither layer imports the other. The client learns only its kind; the log gets the cause.
 */
export class StorageError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly kind: StorageFailure = 'failed',
  ) {
    super('Database error');
    this.name = 'StorageError';
  }
}

/** What went wrong underneath: a StorageError's cause, any other error as it is. */
export function causeOf(error: unknown): unknown {
  return error instanceof StorageError ? error.cause : error;
}
