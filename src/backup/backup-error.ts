/**
 * A backup or restore could not be made: the message is meant for a person at a terminal and says
 * what went wrong and what to do, in one or two lines (never a password).
 */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}
