import type { ServerResponse } from 'node:http';
import type { StorageError } from '../http/errors.js';
import { sendJson, writeJsonHead } from '../http/respond.js';
import type { UserStore } from './store.js';

/** Rows are gathered into chunks of about this size before they are written. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Streams the whole table as one JSON array. A list that fits in one chunk is sent with a
 * Content-Length; a longer one flows out chunked, pausing the database read whenever the client
 * is slower than MySQL, so memory stays flat however many users there are. A failure before the
 * first byte rejects (the caller answers 500); after it the response can only be cut short.
 */
export function streamUserList(res: ServerResponse, store: UserStore): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending = '[';
    let separator = '';
    let started = false;
    let finished = false;

    const stream = store.streamAllAsJson({
      row(row) {
        pending += separator + row.json;
        separator = ',';
        if (pending.length < CHUNK_CHARS) return;
        if (!started) {
          started = true;
          writeJsonHead(res, 200);
        }
        const chunk = pending;
        pending = '';
        if (!res.write(chunk)) {
          stream.pause();
          res.once('drain', () => stream.resume());
        }
      },
      end() {
        finished = true;
        if (started) res.end(pending + ']');
        else sendJson(res, 200, pending + ']');
        resolve();
      },
      fail(error: StorageError) {
        finished = true;
        if (!started) return reject(error);
        res.destroy(error);
        resolve();
      },
    });

    res.once('close', () => {
      if (!finished) stream.abort();
    });
  });
}
