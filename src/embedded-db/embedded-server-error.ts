/**
 * A private database server could not be found, prepared or started. The message is meant for a
 * person at a terminal: it says what went wrong and what to install or set, in one or two lines.
 */
export class EmbeddedServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedServerError';
  }
}

/** The data directory cannot be made or is no folder; `reason` says why, without the path. */
export class DataDirError extends EmbeddedServerError {
  constructor(
    readonly dataDir: string,
    readonly reason: string,
  ) {
    super(`The data directory ${dataDir} ${reason}`);
    this.name = 'DataDirError';
  }
}
