import type { Worker } from 'node:cluster';

/**
 * Sends a message from the primary to a worker, if it is still connected. A worker can exit between
 * that check and the write (the pipe then fails with EPIPE); such a message has no one left to
 * read it, and is dropped instead of surfacing as an 'error' event that would end the primary.
 */
export function tellWorker(worker: Worker, message: object): void {
  if (!worker.isConnected()) return;
  worker.send(message, undefined, ignoreFailure);
}

function ignoreFailure(): void {}
