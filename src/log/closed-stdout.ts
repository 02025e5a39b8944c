/**
 * For a command whose output may be piped (`npm run -s db:migrate -- --dry-run | head -1`): once the
 * reader has gone, what is left to print is dropped, and the command goes on to its end (stopping
 * what it started) without the stack trace of an unhandled EPIPE.
 */
export function dropOutputOnceReaderGone(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    // After the pipe closed, a write to the destroyed stream fails too: nothing to say about either.
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}
