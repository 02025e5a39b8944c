import { writeSync } from 'node:fs';

/** How the logger hands its lines on. */
export type LineWriter = (line: string) => void;

/**
 * A write of at most this many bytes to a pipe is atomic (PIPE_BUF on Linux). With WORKERS every
 * process writes to the one stdout, so a longer write could be cut by another process's lines.
 */
const ATOMIC_WRITE_BYTES = 4096;

/**
 * Lines for stdout, gathered while the event loop turns and written in pieces that end at a line's
 * end and fit one atomic write: many lines per system call under load, and no line of one process
 * ever cut by another's. Only one piece is in flight at a time: stdout would otherwise join queued
 * pieces into one longer write. Whatever is left at exit is written then.
 */
export function stdoutLines(): LineWriter {
  let pending = '';
  let queued: Buffer = Buffer.alloc(0);
  let writing = false;

  const writeNext = (): void => {
    if (queued.length === 0) {
      if (pending === '') return;
      queued = Buffer.from(pending);
      pending = '';
    }
    const end = pieceEnd(queued);
    const piece = queued.subarray(0, end);
    queued = queued.subarray(end);
    writing = true;
    process.stdout.write(piece, afterWrite);
  };
  const afterWrite = (): void => {
    writing = false;
    writeNext();
  };
  process.once('exit', () => {
    const rest = Buffer.concat([queued, Buffer.from(pending)]);
    if (rest.length > 0) writeSync(1, rest);
  });
  return (line) => {
    if (pending === '' && !writing && queued.length === 0) setImmediate(writeNext);
    pending += line;
  };
}

/** Where the first piece of `bytes` ends: after the last line end that fits, or after the first line if none does. */
function pieceEnd(bytes: Buffer): number {
  if (bytes.length <= ATOMIC_WRITE_BYTES) return bytes.length;
  const lastFitting = bytes.lastIndexOf(0x0a, ATOMIC_WRITE_BYTES - 1);
  if (lastFitting !== -1) return lastFitting + 1;
  const firstLineEnd = bytes.indexOf(0x0a);
  return firstLineEnd === -1 ? bytes.length : firstLineEnd + 1;
}
