/**
 * Errors that cross layers: raised in src/db/, turned into responses in src/http/. They live here
 * so that neither layer imports the other.
 */

/** The storage layer failed; the client learns only that, the log gets the cause. */
export class StorageError extends Error {
  constructor(override readonly cause: unknown) {
    super('Database error');
    this.name = 'StorageError';
  }
}

/** What went wrong underneath: a StorageError's cause, any other error as it is. */
export function causeOf(error: unknown): unknown {
  return error instanceof StorageError ? error.cause : error;
}
