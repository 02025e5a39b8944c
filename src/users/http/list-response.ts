import type { ServerResponse } from 'node:http';
import { StopSignal } from '../../db/stop-signal.js';
import { sendJson, writeJsonHead } from '../../http/respond.js';
import type { StreamedList } from '../storage/user-list.js';
import type { UserStore } from '../storage/store.js';
import type { SpanContext } from '../../tracing/trace-context.js';

/** The whole table as one JSON array: shared with concurrent listings while it is small, else streamed. */
export async function sendUserList(res: ServerResponse, store: UserStore, span?: SpanContext): Promise<void> {
  const turn = await store.listTurn(span);
  if ('body' in turn) return sendJson(res, 200, turn.body);
  try {
    await streamList(res, (clientGone) => store.streamList(turn.deadline, clientGone), undefined, turn.release);
  } finally {
    turn.release();
  }
}

/** Every response closes, also a finished one: the reason is made once. */
const CLIENT_WENT_AWAY = new Error('the client went away');

/**
 * A list that fits in one chunk is sent with a Content-Length; a longer one flows out chunked at
 * the client's pace, each chunk written once the one before was handed to the network (see
 * ChunkFlow), so memory stays flat however many users there are and however slowly they are read.
 * A failure before the first byte rejects (the caller answers 500); after it the response is cut
 * short. A client that goes away stops the read. `provedLarge` is told when the list takes more
 * than one chunk.
 */
export async function streamList(
  res: ServerResponse,
  open: (clientGone: StopSignal) => Promise<StreamedList>,
  headers?: Readonly<Record<string, string>>,
  provedLarge?: () => void,
): Promise<void> {
  const clientGone = new StopSignal();
  res.once('close', () => clientGone.stop(CLIENT_WENT_AWAY));
  let list: StreamedList;
  try {
    list = await open(clientGone);
  } catch (error) {
    if (clientGone.stopped) return;
    throw error;
  }
  if (!list.rest) return sendJson(res, 200, list.first, headers);
  provedLarge?.();
  writeJsonHead(res, 200, headers);
  res.write(list.first);
  try {
    // The write's callback says when the chunk's bytes were handed on: its memory is reused then.
    await list.rest.sendTo((chunk, sent) => res.write(chunk, sent));
    res.end();
  } catch {
    // The client sees the response cut short (one that went away has closed it already).
    res.destroy();
  }
}
