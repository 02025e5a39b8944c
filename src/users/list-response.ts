import type { ServerResponse } from 'node:http';
import type { StorageError } from '../http/errors.js';
import { applyJsonHeaders } from '../http/respond.js';
import type { UserStore } from './store.js';
import { userJson } from './user.js';

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
    let rowCount = 0;
    let started = false;
    let finished = false;

    const flush = (): void => {
      if (!started) {
        started = true;
        applyJsonHeaders(res);
        res.writeHead(200);
      }
      const chunk = pending;
      pending = '';
      if (!res.write(chunk)) {
        stream.pause();
        res.once('drain', () => stream.resume());
      }
    };

    const stream = store.streamAll({
      row(row) {
        pending += rowCount++ === 0 ? userJson(row) : `,${userJson(row)}`;
        if (pending.length >= CHUNK_CHARS) flush();
      },
      end() {
        finished = true;
        pending += ']';
        if (started) {
          res.end(pending);
        } else {
          applyJsonHeaders(res);
          res.setHeader('Content-Length', Buffer.byteLength(pending));
          res.writeHead(200);
          res.end(pending);
        }
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
