import { constants } from 'node:os';

/**
 * Everything a fault run made that outlives it unless removed: namespaces, the bridge, processes.
 * Each maker registers its undo; they run in reverse order at the end, and also on SIGINT/SIGTERM
 * and at exit, so an interrupted or failed run leaves nothing behind.
 */
const undos: Array<{ what: string; undo: () => void }> = [];
let hooked = false;

export function onCleanup(what: string, undo: () => void): () => void {
  hook();
  const entry = { what, undo };
  undos.push(entry);
  return () => {
    const at = undos.indexOf(entry);
    if (at >= 0) undos.splice(at, 1);
  };
}

/** Runs every registered undo, newest first; each runs once. */
export function cleanUpEverything(): void {
  while (undos.length > 0) {
    const { what, undo } = undos.pop()!;
    try {
      undo();
    } catch (error) {
      process.stderr.write(`# clean-up of ${what} failed: ${(error as Error).message}\n`);
    }
  }
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', cleanUpEverything);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      cleanUpEverything();
      process.exit(128 + constants.signals[signal]);
    });
  }
}
