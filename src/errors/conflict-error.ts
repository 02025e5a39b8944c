/**
 * A write refused because it would break a rule about the stored data as a whole (an email another
 * user has): the client's to resolve, not a fault. Raised in src/users/storage/, answered 409 by
 * src/http/answer-error.ts; its message is shown to the client as it is, so it comes from messages.ts.
 */
export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}
