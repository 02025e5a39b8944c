export type StoreOperation = 'read' | 'create' | 'update' | 'delete' | 'list';
export type OperationOutcome = 'ok' | 'error' | 'busy';

/** Told of every operation's outcome and of every coalesced batch's size (for the metrics). */
export interface StoreObserver {
  operation(kind: StoreOperation, outcome: OperationOutcome): void;
  batch(kind: StoreOperation, size: number): void;
}
