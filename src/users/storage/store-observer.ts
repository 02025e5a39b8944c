export type StoreOperation = 'read' | 'create' | 'update' | 'delete' | 'list';
/** `conflict`: refused because it would give a user an email another user has (the client's doing, not a fault). */
export type OperationOutcome = 'ok' | 'error' | 'busy' | 'conflict';

/** Told of every operation's outcome and of every coalesced batch's size (for the metrics). */
export interface StoreObserver {
  operation(kind: StoreOperation, outcome: OperationOutcome): void;
  batch(kind: StoreOperation, size: number): void;
}
