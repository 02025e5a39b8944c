/**
 * A schema the service cannot use and that waiting will not mend (a column missing or of the wrong
 * type, duplicated emails under UNIQUE_EMAIL=on): the start stops with this one-line message,
 * where an unreachable database is retried.
 */
export class UnusableSchemaError extends Error {
  override readonly name = 'UnusableSchemaError';
}
