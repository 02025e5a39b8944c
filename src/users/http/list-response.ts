import type { ServerResponse } from 'node:http';
import type { Deadline } from '../../db/deadline.js';
import type { StorageError } from '../../errors/storage-error.js';
import { sendJson, writeJsonHead } from '../../http/respond.js';
import type { UserStore } from '../storage/store.js';

/** The whole table as one JSON array: shared with concurrent listings while it is small, else streamed. */
export async function sendUserList(res: ServerResponse, store: UserStore): Promise<void> {
  const turn = await store.listTurn();
  if ('body' in turn) return sendJson(res, 200, turn.body);
  try {
    await streamUserList(res, store, turn.deadline, turn.release);
  } finally {
    turn.release();
  }
}

/**
 * A list that fits in one chunk is sent with a Content-Length; a longer one flows out chunked,
 * pausing the database read whenever the client is slower than MySQL, so memory stays flat however
 * many users there are. A failure before the first byte rejects (the caller answers 500); after it
 * the response can only be cut short.
 */
function streamUserList(res: ServerResponse, store: UserStore, deadline: Deadline, provedLarge: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let started = false;
    let finished = false;

    const stream = store.streamList({
      chunk(bytes) {
        if (!started) {
          started = true;
          provedLarge();
          writeJsonHead(res, 200);
        }
        if (!res.write(bytes)) {
          stream.pause();
          res.once('drain', () => stream.resume());
        }
      },
      end(rest) {
        finished = true;
        if (started) res.end(rest);
        else sendJson(res, 200, rest);
        resolve();
      },
      fail(error: StorageError) {
        finished = true;
        if (!started) return reject(error);
        res.destroy(error);
        resolve();
      },
    }, deadline);

    res.once('close', () => {
      if (finished) return;
      finished = true;
      stream.abort();
      resolve();
    });
  });
}
