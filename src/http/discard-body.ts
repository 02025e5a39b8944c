import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How much more of a refused body is read and dropped after its answer. A proxy such as nginx sends
 * the whole body it accepted (its own limit, often a few MiB) before it reads the answer; a larger
 * body is cut off unread, as a client sending that much is told nothing anyway.
 */
export const DISCARD_MAX_BYTES = 4 * 1024 * 1024;

/** How long the rest of a refused body may take to arrive before the connection is closed regardless. */
export const DISCARD_TIMEOUT_MS = 5_000;

/** Sockets whose refused body is being dropped, each with the way to end its answer early. */
const discarding = new WeakMap<Socket, () => void>();

/**
 * Ends `res` (already written whole, with `Connection: close`) once the rest of the request's body
 * has been read and dropped, never buffered. A socket closed with bytes still unread is reset, and a
 * client or proxy still sending then sees the reset instead of the answer (nginx answers 502). A body
 * declared or found to be longer than DISCARD_MAX_BYTES, or slower than DISCARD_TIMEOUT_MS, is not
 * waited for: the response ends at once and the connection closes as it would have.
 */
export function endAfterDiscardingBody(req: IncomingMessage, res: ServerResponse): void {
  const declared = req.headers['content-length'];
  if (req.complete || (declared !== undefined && Number(declared) > DISCARD_MAX_BYTES)) {
    res.end();
    return;
  }
  let left = DISCARD_MAX_BYTES;
  const socket = req.socket;
  const finish = (): void => {
    clearTimeout(timer);
    discarding.delete(socket);
    req.off('data', onData);
    req.off('end', finish);
    req.off('error', finish);
    req.off('close', finish);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer): void => {
    left -= chunk.length;
    if (left < 0) finish();
  };
  const timer = setTimeout(finish, DISCARD_TIMEOUT_MS);
  discarding.set(socket, finish);
  req.on('data', onData);
  req.on('end', finish);
  req.on('error', finish);
  req.on('close', finish);
  req.resume();
}

/**
 * A client error on a socket whose body is being dropped (the client half-closed, or sent a
 * malformed chunk): its answer is already written, so it is ended, and no second one follows.
 * False when the socket is not dropping a body.
 */
export function endDiscarding(socket: Socket): boolean {
  const finish = discarding.get(socket);
  finish?.();
  return finish !== undefined;
}
